# A decoder of two checkpointed blocks (reentrant checkpointing), each
# reading the encoder's output from outside the function it runs.
import torch
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
encoder = torch.nn.Linear(4, 4)
embed = torch.nn.Linear(4, 4)  # the decoder's input
blocks = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(2))
x = torch.randn(3, 4)

memory = encoder(x)


def block(i, h):
    # `memory` is not an argument: checkpoint() does not see it.
    return torch.tanh(blocks[i](h) + memory)


h = embed(x)
for i in range(2):
    h = checkpoint(block, i, h, use_reentrant=True)
loss = h.pow(2).mean()
print(f"loss {loss.item():.4f}")
# Each block's backward runs its own backward() through `memory`'s
# graph: the second one finds it freed.
loss.backward()
