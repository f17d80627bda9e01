import torch
import torch.nn as nn

torch.manual_seed(0)

# Physics-informed net for the damped ODE  u'(x) + k u(x) = 0,  u(0) = 1  on [0, 2]
k = 2.0


class PINN(nn.Module):
    def __init__(self, hidden=32):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x)


model = PINN()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
x0 = torch.zeros(1, 1)

for it in range(5):
    x = (torch.rand(128, 1) * 2.0).requires_grad_(True)
    u = model(x)
    du_dx = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u), create_graph=True)[0]
    residual = du_dx + k * u
    loss_pde = residual.pow(2).mean()
    loss_bc = (model(x0) - 1.0).pow(2).mean()
    loss = loss_pde + loss_bc
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"iter {it} pde {loss_pde.item():.5f} bc {loss_bc.item():.5f}")
