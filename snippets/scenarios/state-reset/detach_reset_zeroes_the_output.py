import torch
from torch import nn


class LeakyMemory(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.inp = nn.Linear(dim, dim)
        self.register_buffer("mem", torch.zeros(2, dim))

    def forward(self, x):
        self.mem = 0.9 * self.mem + torch.tanh(self.inp(x))
        return self.mem  # the caller gets the buffer itself


def in_place(net):
    net.mem.detach_().zero_()


def new_tensor(net):
    net.mem = torch.zeros_like(net.mem)


def sequence():
    torch.manual_seed(0)
    net = LeakyMemory(3)
    outputs = [net(torch.randn(2, 3)) for t in range(4)]
    return net, outputs


def sums(outputs):
    return " ".join(f"{o.abs().sum().item():.2f}" for o in outputs)


for reset in (in_place, new_tensor):
    net, outputs = sequence()
    out = outputs[-1]
    alias = out is net.mem
    print(f"{reset.__name__}: last output is the buffer: {alias}")
    recorded = sums(outputs)
    reset(net)
    print(f"    recorded outputs: {recorded} -> {sums(outputs)}")
    loss = out.pow(2).mean()  # a loss made after the reset
    print(
        f"    loss made after the reset: {loss.item():.4f}, "
        f"requires_grad {loss.requires_grad}"
    )
    net, outputs = sequence()
    loss = outputs[-1].pow(2).mean()  # made before the reset
    reset(net)
    try:
        loss.backward()
        grad = net.inp.weight.grad.norm()
        print(
            f"    loss made before, backward after: "
            f"weight grad norm {grad:.4f}"
        )
    except RuntimeError as err:
        first = str(err).split(",")[0]
        print(f"    loss made before, backward after: {first}")
