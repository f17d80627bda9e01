# Two DDP processes (gloo, CPU), started by two_ranks.py beside this
# file: takes a few seconds.
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from two_ranks import gap_between_ranks, run_on_two_ranks

SETUPS = {
    "plain DDP": {},
    "find_unused_parameters=True": {"find_unused_parameters": True},
    "static_graph=True": {"static_graph": True},
}


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Linear(3, 4)
        self.head_a = nn.Linear(4, 1)
        self.head_b = nn.Linear(4, 1)

    def forward(self, x):
        h = torch.tanh(self.trunk(x))
        return self.head_a(h), self.head_b(h)


def train(rank):
    for name, options in SETUPS.items():
        torch.manual_seed(0)
        # --8<-- [start:fix]
        model = DDP(TwoHeads(), **options)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        torch.manual_seed(1 + rank)  # each rank gets its own batch
        for step in range(3):
            x = torch.randn(8, 3)
            a, b = model(x)
            opt.zero_grad()
            # One backward per forward: DDP averages every gradient.
            (a.pow(2).mean() + b.pow(2).mean()).backward()
            opt.step()
            # --8<-- [end:fix]
        gap = gap_between_ranks(model.parameters())
        if rank == 0:
            print(f"{name}: 3 steps, replicas differ by {gap}")


run_on_two_ranks(train)
