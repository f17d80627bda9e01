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


def detach_then_zero(net):
    net.mem.detach_().zero_()


def zero_then_detach(net):
    net.mem.zero_().detach_()


def fresh_tensor(net):
    net.mem = torch.zeros_like(net.mem)  # still a registered buffer


for reset in (fresh_tensor, detach_then_zero, zero_then_detach):
    torch.manual_seed(0)
    net = LeakyMemory(3)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    losses = []
    for step in range(3):
        for t in range(4):
            out = net(torch.randn(2, 3))
        loss = out.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        reset(net)
        losses.append(f"{loss.item():.4f}")
    kept = "mem" in dict(net.named_buffers())
    print(f"{reset.__name__}: losses {' '.join(losses)}")
    print(f"    grad_fn {net.mem.grad_fn}, still a buffer: {kept}")
