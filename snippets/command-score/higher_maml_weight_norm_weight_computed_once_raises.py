"""higher's MAML example with a weight-normalized layer
(torch.nn.utils.weight_norm) in the network.

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

net = nn.Sequential(
    nn.utils.weight_norm(nn.Conv2d(1, 4, 3)),
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
    meta_opt.step()
