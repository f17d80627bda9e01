import torch
import torch.nn as nn

torch.manual_seed(0)

DECAY_RATE = 1.3
T_MAX = 2.0


class PINN(nn.Module):
    def __init__(self, width=32):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(1, width), nn.Tanh(),
            nn.Linear(width, width), nn.Tanh(),
            nn.Linear(width, 1),
        )

    def forward(self, t):
        return self.net(t)


model = PINN()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
t0 = torch.zeros(1, 1)
u0 = torch.ones(1, 1)

for it in range(2000):
    t = (torch.rand(128, 1) * T_MAX).requires_grad_(True)
    u = model(t)
    du_dt = torch.autograd.grad(u, t, grad_outputs=torch.ones_like(u), retain_graph=True)[0]
    residual = du_dt + DECAY_RATE * u
    loss_pde = (residual ** 2).mean()
    loss_ic = ((model(t0) - u0) ** 2).mean()
    loss = loss_pde + 10.0 * loss_ic
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    if it % 500 == 0:
        print(it, loss_pde.item(), loss_ic.item())

t_test = torch.linspace(0, T_MAX, 50).unsqueeze(1)
with torch.no_grad():
    err = (model(t_test) - torch.exp(-DECAY_RATE * t_test)).abs().max()
print("max error", err.item())
