# written
# PINN for u'(x) = u(x), u(0) = 1 on [0, 2] (exact: exp(x)). The residual contains du/dx, obtained
# with torch.autograd.grad; the network weights must learn from the residual AND the boundary term.
import torch

torch.manual_seed(0)
net = torch.nn.Sequential(
    torch.nn.Linear(1, 32),
    torch.nn.Tanh(),
    torch.nn.Linear(32, 32),
    torch.nn.Tanh(),
    torch.nn.Linear(32, 1),
)
opt = torch.optim.Adam(net.parameters(), lr=1e-2)
x0 = torch.zeros(1, 1)

for it in range(5):
    x = (torch.rand(64, 1) * 2).requires_grad_()
    u = net(x)
    (du_dx,) = torch.autograd.grad(u, x, grad_outputs=torch.ones_like(u))
    residual = du_dx - u
    loss = (residual**2).mean() + ((net(x0) - 1.0) ** 2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(it, loss.item())
