# The detach an answer suggests: the blocks run, and the encoder, whose
# only way to the loss is `memory`, gets no gradient at all.
import torch
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
encoder = torch.nn.Linear(4, 4)
embed = torch.nn.Linear(4, 4)  # the decoder's input
blocks = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(2))
x = torch.randn(3, 4)
opt = torch.optim.SGD(
    [*encoder.parameters(), *embed.parameters(), *blocks.parameters()],
    lr=0.1,
)

memory = encoder(x).detach()


def block(i, h):
    return torch.tanh(blocks[i](h) + memory)


h = embed(x)
for i in range(2):
    h = checkpoint(block, i, h, use_reentrant=True)
h.pow(2).mean().backward()
opt.step()
print("encoder.weight.grad:", encoder.weight.grad)
print("blocks[0] trains:", blocks[0].weight.grad is not None)
