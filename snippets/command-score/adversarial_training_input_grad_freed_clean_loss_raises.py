import torch
from torch import nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, 5))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
eps = 0.5
data = [
    (torch.randn(32, 20), torch.randint(0, 5, (32,))) for _ in range(3)
]

for step, (x, y) in enumerate(data):
    optimizer.zero_grad()
    x.requires_grad_(True)
    loss_clean = nn.functional.cross_entropy(model(x), y)
    # adversarial example: one normalised gradient step on the input
    (g,) = torch.autograd.grad(loss_clean, x)
    x_adv = x + eps * g / g.norm()
    loss_adv = nn.functional.cross_entropy(model(x_adv), y)
    print(
        f"step {step}: clean loss {loss_clean.item():.3f}, "
        f"adversarial loss {loss_adv.item():.3f}"
    )
    (loss_clean + loss_adv).backward()
    optimizer.step()
