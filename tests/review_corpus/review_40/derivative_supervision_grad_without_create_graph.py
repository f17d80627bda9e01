# Source: https://github.com/pytorch/pytorch/issues/31984
# User wants a net that fits y(x) AND whose input-gradient fits z(x) = dy/dx
# (derivative supervision / Sobolev training). grad_x is taken with autograd.grad
# and used inside the loss, then loss_y + loss_z is backwarded.
# (The version silenced the error with retain_graph=True; this is the
# program before that flag was added.)
import torch
from torch import nn
from torch.autograd import grad

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin1 = nn.Linear(3, 30)
        self.lin2 = nn.Linear(30, 1)

    def forward(self, p):
        return self.lin2(torch.tanh(self.lin1(p)))


x = torch.randn(256, 3)
y = (5 * torch.sin(x) + 3 * torch.cos(x)).sum(dim=-1).unsqueeze(-1)
z = (5 * torch.cos(x) - 3 * torch.sin(x)).sum(dim=-1).unsqueeze(-1)
model = Net()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

for epoch in range(20):
    x.requires_grad = True
    optimizer.zero_grad()
    output = model(x)
    grad_x = grad(output.sum(), x)[0]  # frees the forward graph
    loss_y = nn.MSELoss()(output, y)
    loss_z = nn.MSELoss()(grad_x.sum(dim=-1).unsqueeze(-1), z)  # must train the net too
    loss = loss_y + loss_z
    loss.backward()  # RuntimeError here
    optimizer.step()
    print(f"epoch {epoch} loss_y={loss_y.item():.4f} loss_z={loss_z.item():.4f}")
