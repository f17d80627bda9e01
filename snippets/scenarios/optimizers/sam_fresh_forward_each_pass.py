import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(16, 3)
y = x @ torch.tensor([[1.0, 0.5], [-2.0, 0.0], [0.5, 1.0]])
model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
params = list(model.parameters())
rho = 0.05


def compute_loss():
    # Forward and loss together: every call starts a new graph and
    # a new total, so no pass can reach another pass's graph.
    output = model(x)
    return sum(
        nn.functional.mse_loss(output[:, t], y[:, t]) for t in range(2)
    )


for step in range(3):
    loss = compute_loss()  # at w
    loss.backward()
    with torch.no_grad():
        norm = torch.cat([p.grad.flatten() for p in params]).norm()
        eps = [rho * p.grad / norm for p in params]
        for p, e in zip(params, eps):
            p.add_(e)  # climb to w + e
    opt.zero_grad()
    loss_at_e = compute_loss()  # at w + e: a second forward
    loss_at_e.backward()
    with torch.no_grad():
        for p, e in zip(params, eps):
            p.sub_(e)  # back to w, keeping the gradient at w + e
    opt.step()
    opt.zero_grad()
    print(
        f"step {step}: loss at w {loss.item():.4f}, "
        f"at w + e {loss_at_e.item():.4f}"
    )
