# A cosine classifier that normalizes its class weights in forward,
# from their current values.
import torch
from torch import nn

torch.manual_seed(0)


class CosineClassifier(nn.Module):
    def __init__(self, dim, classes, scale=10.0):
        super().__init__()
        self.scale = scale
        self.weight = nn.Parameter(torch.randn(classes, dim) * 0.3)

    def forward(self, feats):
        feats = nn.functional.normalize(feats, dim=1)
        w_norm = self.weight.norm(dim=1, keepdim=True)
        return self.scale * feats @ (self.weight / w_norm).T


backbone = nn.Sequential(nn.Linear(10, 16), nn.ReLU())
head = CosineClassifier(16, 5)
model = nn.Sequential(backbone, head)
optimizer = torch.optim.SGD(model.parameters(), lr=0.2, foreach=True)
scheduler = torch.optim.lr_scheduler.StepLR(optimizer, 3, gamma=0.5)
x, y = torch.randn(6, 32, 10), torch.randint(5, (6, 32))
for epoch in range(6):
    loss = nn.functional.cross_entropy(model(x[epoch]), y[epoch])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    now = head.weight.norm(dim=1, keepdim=True).detach()
    used = head.w_norm if hasattr(head, "w_norm") else now
    rel = ((used - now).norm() / now.norm()).item()
    print(f"epoch {epoch}: loss {loss.item():.3f}, weight norms used "
          f"vs current (relative) {rel:.3f}")
