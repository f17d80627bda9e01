# Fine-tuning the last layer of a backbone: the frozen part is frozen
# by requires_grad_(False); the forward runs with gradients on.
import torch
from torch import nn

torch.manual_seed(0)


class Backbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.frozen = nn.Sequential(nn.Linear(12, 24), nn.ReLU())
        self.frozen.requires_grad_(False)
        self.proj = nn.Linear(24, 16)  # the layer meant to be tuned

    def forward(self, x):
        return self.proj(self.frozen(x))


backbone = Backbone()
classifier = nn.Linear(16, 4)
trainable = [p for m in (backbone, classifier) for p in m.parameters()
             if p.requires_grad]
optimizer = torch.optim.AdamW(trainable, lr=1e-2, fused=True)
scheduler = torch.optim.lr_scheduler.CosineAnnealingLR(optimizer, 4)
x, y = torch.randn(4, 32, 12), torch.randint(4, (4, 32))
before = backbone.proj.weight.detach().clone()
for step in range(4):
    backbone.train()
    feats = backbone(x[step])
    loss = nn.functional.cross_entropy(classifier(feats), y[step])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    scheduler.step()
    none = [n for n, p in backbone.named_parameters()
            if p.requires_grad and p.grad is None]
    print(f"step {step}: loss {loss.item():.3f}, trainable backbone "
          f"params with grad None: {none}")
moved = (backbone.proj.weight - before).abs().max().item()
print(f"backbone.proj.weight largest change: {moved:.4f}")
