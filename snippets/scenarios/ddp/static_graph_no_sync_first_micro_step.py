# Runs two DDP processes (gloo, CPU, loopback): takes a few seconds.
import torch
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP
from two_ranks import gap_between_ranks, run_on_two_ranks

N = 4  # micro-batches per optimizer step


def train(rank):
    for first_inside in (True, False):
        torch.manual_seed(0)
        net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        model = DDP(net, static_graph=True)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        if not first_inside:  # one whole step before any no_sync()
            torch.manual_seed(rank)
            x, y = torch.randn(8, 4), torch.randn(8, 1)
            nn.functional.mse_loss(model(x), y).backward()
            opt.step()
            opt.zero_grad()
        outcome = "runs"
        try:
            for i in range(N):
                torch.manual_seed(10 * i + rank)  # a batch per rank
                x, y = torch.randn(8, 4), torch.randn(8, 1)
                if i < N - 1:
                    with model.no_sync():
                        loss = nn.functional.mse_loss(model(x), y) / N
                        loss.backward()
                else:
                    loss = nn.functional.mse_loss(model(x), y) / N
                    loss.backward()
            opt.step()
            gap = gap_between_ranks(model.parameters())
            outcome += f", replicas differ by {gap:.3f}"
        except RuntimeError as error:
            outcome = str(error).split(" at ")[0]  # not the C++ line
        if rank == 0:
            when = "first" if first_inside else "after one step"
            print(f"no_sync() {when}: {outcome}")


run_on_two_ranks(train)
