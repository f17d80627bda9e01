import torch
from torch import nn


class LeakyMemory(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.inp = nn.Linear(dim, dim)
        self.register_buffer("mem", torch.zeros(2, dim))

    # --8<-- [start:fix]
    def forward(self, x):
        self.mem = 0.9 * self.mem + torch.tanh(self.inp(x))
        return self.mem

    def reset(self):
        # New zeros without the history, still a registered buffer.
        self.mem = torch.zeros_like(self.mem)
        # --8<-- [end:fix]


# The two in-place resets, for comparison.
class DetachThenZero(LeakyMemory):
    def reset(self):
        self.mem.detach_().zero_()


class ZeroThenDetach(LeakyMemory):
    def reset(self):
        self.mem.zero_().detach_()


resets = {
    "fresh_tensor": LeakyMemory,
    "detach_then_zero": DetachThenZero,
    "zero_then_detach": ZeroThenDetach,
}
for name, module in resets.items():
    torch.manual_seed(0)
    net = module(3)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    losses = []
    for step in range(3):
        for t in range(4):
            out = net(torch.randn(2, 3))
        loss = out.pow(2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        net.reset()
        losses.append(f"{loss.item():.4f}")
    kept = "mem" in dict(net.named_buffers())
    print(f"{name}: losses {' '.join(losses)}")
    print(f"    grad_fn {net.mem.grad_fn}, still a buffer: {kept}")
