import torch
from torch import nn


class LeakyMemory(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.inp = nn.Linear(dim, dim)
        self.register_buffer("mem", torch.zeros(2, dim))

    def forward(self, x):
        self.mem = 0.9 * self.mem + torch.tanh(self.inp(x))
        return self.mem

    def reset(self):
        with torch.no_grad():  # not recorded, so nothing is cut
            self.mem.zero_()


torch.manual_seed(0)
net = LeakyMemory(3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(2):
    for t in range(4):
        out = net(torch.randn(2, 3))
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    net.reset()
    print(f"step {step}: after reset: grad_fn {net.mem.grad_fn.name()}")
