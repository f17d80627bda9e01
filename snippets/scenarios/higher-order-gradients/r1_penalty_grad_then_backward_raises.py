import torch
from torch import nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
real = torch.randn(16, 2).requires_grad_()

# R1 penalty: the critic's gradient with respect to real samples.
out_real = critic(real)
(grad_real,) = torch.autograd.grad(out_real.sum(), real)
penalty = grad_real.pow(2).sum(dim=1).mean()
print(f"penalty = {penalty.item():.4f}")

# The loss goes back through out_real's graph, which grad() freed.
loss = -out_real.mean() + 5.0 * penalty
loss.backward()
