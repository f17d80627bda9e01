"""https://github.com/jeshraghian/snntorch/issues/250

snntorch 1.0.0. The fix the user found: the time loop moves into
forward, which resets self.net, the nn.Sequential that holds the
Leaky neurons, so every batch starts at rest.
"""

import snntorch as snn
import snntorch.functional as SF
import torch
import torch.nn as nn
from snntorch import surrogate, utils

torch.manual_seed(0)
spike_grad = surrogate.fast_sigmoid(slope=25)
beta = 0.5
num_steps = 5


class Net(nn.Module):
    def __init__(self, num_steps):
        super().__init__()
        self.num_steps = num_steps
        self.net = nn.Sequential(
            nn.Conv2d(1, 12, 5),
            nn.MaxPool2d(2),
            snn.Leaky(beta, spike_grad=spike_grad, init_hidden=True),
            nn.Conv2d(12, 16, 3),
            nn.MaxPool2d(2),
            snn.Leaky(beta, spike_grad=spike_grad, init_hidden=True),
            nn.Flatten(),
            nn.Linear(16, 10),
            snn.Leaky(
                beta=beta,
                spike_grad=spike_grad,
                init_hidden=True,
                output=True,
            ),
        )

    # --8<-- [start:fix]
    def forward(self, x):
        mem_rec = []
        spk_rec = []
        utils.reset(self.net)  # the Sequential: its Leaky are found

        for step in range(self.num_steps):
            spk_out, mem_out = self.net(x)
            spk_rec.append(spk_out)
            mem_rec.append(mem_out)

        return torch.stack(spk_rec), torch.stack(mem_rec)

    # --8<-- [end:fix]


net = Net(num_steps)
optimizer = torch.optim.Adam(
    net.parameters(), lr=1e-2, betas=(0.9, 0.999)
)
loss_fn = SF.ce_rate_loss()
batches = [
    (torch.rand(4, 1, 12, 12) * 8, torch.tensor([0, 1, 2, 3]))
    for _ in range(3)
]
before = [p.detach().clone() for p in net.parameters()]
at_rest = []  # the first Leaky's state as each time step starts
net.net[2].register_forward_pre_hook(
    lambda m, args: at_rest.append(
        m.mem.grad_fn is None and not m.mem.any()
    )
)

for i, (data, targets) in enumerate(batches):
    spk_rec, mem_rec = net(data)
    loss_val = loss_fn(spk_rec, targets)
    optimizer.zero_grad()
    loss_val.backward()
    optimizer.step()
    started = at_rest[i * num_steps]
    print(f"batch {i}: loss {loss_val.item():.4f}, at rest: {started}")

for name, p in net.named_parameters():
    print(f"{name}: grad nonzero {bool(p.grad.abs().sum() > 0)}")
moved = all(
    not torch.equal(b, p) for b, p in zip(before, net.parameters())
)
print(f"every weight updated: {moved}")
