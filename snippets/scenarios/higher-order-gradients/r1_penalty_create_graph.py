import torch
from torch import nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(critic.parameters(), lr=0.1)

for step in range(3):
    real = torch.randn(16, 2).requires_grad_()
    # --8<-- [start:fix]
    out_real = critic(real)
    # create_graph=True records the gradient computation itself, so
    # the penalty can be differentiated, and keeps out_real's graph.
    (grad_real,) = torch.autograd.grad(
        out_real.sum(), real, create_graph=True
    )
    penalty = grad_real.pow(2).sum(dim=1).mean()
    loss = -out_real.mean() + 5.0 * penalty
    # --8<-- [end:fix]
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(
        f"step {step}: penalty = {penalty.item():.4f}, "
        f"differentiable: {penalty.requires_grad}"
    )
