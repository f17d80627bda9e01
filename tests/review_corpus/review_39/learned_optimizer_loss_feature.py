import torch
import torch.nn as nn

torch.manual_seed(0)

DIM, UNROLL = 10, 8


class LearnedOptimizer(nn.Module):
    def __init__(self, hidden=20):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, grad, loss):
        feats = torch.stack([grad, torch.log1p(loss).expand_as(grad)], dim=-1)
        return 0.1 * self.net(feats).squeeze(-1)


def sample_problem():
    A = torch.randn(DIM, DIM) / DIM**0.5
    A = A @ A.T + 0.1 * torch.eye(DIM)
    b = torch.randn(DIM)
    return lambda theta: 0.5 * theta @ A @ theta - b @ theta + 0.5 * b @ torch.linalg.solve(A, b)


lopt = LearnedOptimizer()
meta_opt = torch.optim.Adam(lopt.parameters(), lr=3e-3)

for it in range(150):
    f = sample_problem()
    theta = torch.zeros(DIM, requires_grad=True)
    meta_loss = 0.0
    for t in range(UNROLL):
        loss = f(theta)
        (grad,) = torch.autograd.grad(loss, theta)
        theta = theta + lopt(grad, loss)
        meta_loss = meta_loss + f(theta)

    meta_opt.zero_grad()
    meta_loss.backward()
    meta_opt.step()
    if it % 30 == 0:
        print(f"iter {it:3d}  meta loss {meta_loss.item():.4f}  final {f(theta).item():.4f}")
