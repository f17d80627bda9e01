"""The fix: the weight-normalized layer computes its weight from g and v
at every call, so the inner loop's fast weights are used.

Source: https://github.com/facebookresearch/higher/issues/14
The user wanted to meta-train a weight-normalized network with MAML:
higher's maml-omniglot.py with weight_norm on its layers.
"""

import higher
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
N_WAY, TASKS, N_INNER = 3, 2, 2


class WeightNormConv2d(nn.Conv2d):
    """weight = g * v / ||v||, computed in forward from g and v."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        v = self.weight.detach().clone()
        del self.weight
        self.weight_g = nn.Parameter(v.flatten(1).norm(dim=1))
        self.weight_v = nn.Parameter(v)

    def forward(self, x):
        norm = self.weight_v.flatten(1).norm(dim=1)
        scale = (self.weight_g / norm).view(-1, 1, 1, 1)
        return self._conv_forward(x, scale * self.weight_v, self.bias)


net = nn.Sequential(
    WeightNormConv2d(1, 4, 3),
    nn.ReLU(inplace=True),
    nn.MaxPool2d(2, 2),
    nn.Flatten(),
    nn.Linear(4 * 3 * 3, N_WAY),
)
meta_opt = torch.optim.Adam(net.parameters(), lr=1e-3)
x_spt = torch.randn(TASKS, N_WAY, 1, 8, 8)
y_spt = torch.arange(N_WAY).repeat(TASKS, 1)
x_qry = torch.randn(TASKS, N_WAY, 1, 8, 8)
y_qry = torch.arange(N_WAY).repeat(TASKS, 1)

for batch_idx in range(2):
    inner_opt = torch.optim.SGD(net.parameters(), lr=1e-1)
    meta_opt.zero_grad()
    for i in range(TASKS):
        with higher.innerloop_ctx(
            net, inner_opt, copy_initial_weights=False
        ) as (fnet, diffopt):
            for _ in range(N_INNER):
                spt_logits = fnet(x_spt[i])
                spt_loss = F.cross_entropy(spt_logits, y_spt[i])
                diffopt.step(spt_loss)
            qry_logits = fnet(x_qry[i])
            qry_loss = F.cross_entropy(qry_logits, y_qry[i])
            qry_loss.backward()
        print(
            f"batch {batch_idx} task {i}: "
            f"qry loss {qry_loss.item():.3f}"
        )
    g, v = net[0].weight_g.grad.norm(), net[0].weight_v.grad.norm()
    print(
        f"batch {batch_idx}: weight_g grad {g:.4f}, "
        f"weight_v grad {v:.4f}"
    )
    meta_opt.step()
