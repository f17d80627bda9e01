import torch
from freed_graph_report import report_freed
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
block = nn.Sequential(nn.Linear(4, 8), nn.BatchNorm1d(8), nn.ReLU())
head = nn.Linear(8, 1)
forwards = []
block.register_forward_pre_hook(lambda module, args: forwards.append(1))


def show(when):
    ran, tracked = len(forwards), block[1].num_batches_tracked.item()
    print(f"{when}: block ran {ran}x, num_batches_tracked={tracked}")


x = torch.randn(16, 4)
out = checkpoint(block, x, use_reentrant=False)  # hooks hold its saves
loss = head(out).pow(2).mean()
show("after the forward")
report_freed(loss)
show("after report_freed")
out.grad_fn._saved_result  # unpacking one saved tensor re-runs block
show("after reading _saved_result")
