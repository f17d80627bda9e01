# A scale made in __init__ from its parameter and detached, as answers
# to this error suggest: the program runs, and the scale never trains.
import torch
from torch import nn

torch.manual_seed(0)


class Scaled(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_scale = nn.Parameter(torch.zeros(1))
        self.net = nn.Linear(4, 1)
        self.scale = self.log_scale.exp().detach()

    def forward(self, x):
        return self.scale * self.net(x)


model = Scaled()
opt = torch.optim.Adam(model.parameters(), lr=0.1)
x, y = torch.randn(32, 4), 3 * torch.randn(32, 1)
for step in range(3):
    loss = nn.functional.mse_loss(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(
        f"step {step}: log_scale.grad {model.log_scale.grad}, "
        f"log_scale {model.log_scale.item():.3f}"
    )
