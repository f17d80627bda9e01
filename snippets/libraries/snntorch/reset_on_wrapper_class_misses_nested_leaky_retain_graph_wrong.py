"""https://github.com/jeshraghian/snntorch/issues/250

snntorch 1.0.0. The issue's title suggests retain_graph=True: the
second backward then goes back into the first batch's graph, whose
weights the optimizer has since changed in place.
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
    def __init__(self):
        super().__init__()
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

    def forward(self, x):
        return self.net(x)


def forward_pass(net, data, num_steps=50):
    mem_rec = []
    spk_rec = []
    utils.reset(net)  # resets hidden states for all LIF neurons in net

    for step in range(num_steps):
        spk_out, mem_out = net(data)
        spk_rec.append(spk_out)
        mem_rec.append(mem_out)

    return torch.stack(spk_rec), torch.stack(mem_rec)


net = Net()
optimizer = torch.optim.Adam(
    net.parameters(), lr=1e-2, betas=(0.9, 0.999)
)
loss_fn = SF.ce_rate_loss()
batches = [
    (torch.rand(4, 1, 12, 12) * 8, torch.tensor([0, 1, 2, 3]))
    for _ in range(3)
]

for i, (data, targets) in enumerate(batches):
    kept = net.net[2].mem.grad_fn is not None
    print(f"batch {i}: membrane kept from the last batch: {kept}")
    spk_rec, mem_rec = forward_pass(net, data, num_steps)
    loss_val = loss_fn(spk_rec, targets)
    optimizer.zero_grad()
    loss_val.backward(retain_graph=True)
    optimizer.step()
    print(f"batch {i}: loss {loss_val.item():.4f}")
