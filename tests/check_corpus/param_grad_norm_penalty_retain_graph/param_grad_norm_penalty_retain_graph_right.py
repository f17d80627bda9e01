# Gradient-norm regularisation: penalise the norm of the parameter
# gradient to favour flat minima.
import torch
from torch import nn

torch.manual_seed(0)

model = nn.Sequential(nn.Linear(8, 32), nn.Tanh(), nn.Linear(32, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
lam = 0.5
x, y = torch.randn(64, 8), torch.randint(0, 3, (64,))

for step in range(4):
    loss = nn.functional.cross_entropy(model(x), y)
    opt.zero_grad()
    grads = torch.autograd.grad(
        loss, list(model.parameters()), create_graph=True
    )
    grad_norm = sum(g.pow(2).sum() for g in grads)
    (loss + lam * grad_norm).backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.3f}, |g|^2 {grad_norm:.4f}")
