import torch
from torch import nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 3))
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
data = [
    (torch.randn(16, 12), torch.randint(0, 3, (16,))) for _ in range(3)
]

for step, (x, y) in enumerate(data):
    optimizer.zero_grad()
    x.requires_grad_(True)
    loss = nn.functional.cross_entropy(model(x), y)
    # saliency for the log: which input features move the loss most
    (g,) = torch.autograd.grad(loss, x)
    saliency = g.abs().mean(0)
    print(
        f"step {step}: loss {loss.item():.3f}, "
        f"most salient feature {saliency.argmax().item()}"
    )
    loss.backward()
    optimizer.step()
