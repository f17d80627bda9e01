import torch
from torch import nn


class LeakyMemory(nn.Module):
    """Keeps a decaying memory of its inputs between calls."""

    def __init__(self, dim):
        super().__init__()
        self.inp = nn.Linear(dim, dim)
        self.register_buffer("mem", torch.zeros(2, dim))

    def forward(self, x):
        self.mem = 0.9 * self.mem + torch.tanh(self.inp(x))
        return self.mem

    def reset(self):
        self.mem.zero_()  # the values are zero; the history is not


torch.manual_seed(0)
net = LeakyMemory(3)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
for step in range(2):
    for t in range(4):  # a sequence of 4 time steps
        out = net(torch.randn(2, 3))
    loss = out.pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    net.reset()
    node = net.mem.grad_fn
    print(f"step {step}: loss = {loss.item():.4f}")
    print(
        f"after reset: all zero: {bool((net.mem == 0).all())}, "
        f"grad_fn: {node.name()} -> {node.next_functions[0][0].name()}"
    )
