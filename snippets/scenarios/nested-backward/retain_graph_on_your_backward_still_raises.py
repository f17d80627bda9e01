# What the error message suggests: retain_graph=True on your backward.
# It keeps your graph, not the one the checkpoint's own backward() call
# runs through `memory`: that call passes no retain_graph.
import torch
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
encoder = torch.nn.Linear(4, 4)
embed = torch.nn.Linear(4, 4)
blocks = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(2))
x = torch.randn(3, 4)

memory = encoder(x)


def block(i, h):
    return torch.tanh(blocks[i](h) + memory)


h = embed(x)
for i in range(2):
    h = checkpoint(block, i, h, use_reentrant=True)
h.pow(2).mean().backward(retain_graph=True)
