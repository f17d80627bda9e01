# The fix: `memory` an argument of the checkpointed function. Each
# block's backward hands memory's gradient to the outer backward, which
# runs the encoder's graph once, with both blocks' gradients summed.
import torch
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
encoder = torch.nn.Linear(4, 4)
embed = torch.nn.Linear(4, 4)  # the decoder's input
blocks = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(2))
x = torch.randn(3, 4)


# --8<-- [start:fix]
def block(i, h, memory):
    return torch.tanh(blocks[i](h) + memory)


def loss_of(run):
    memory = encoder(x)
    h = embed(x)
    for i in range(2):
        h = run(block, i, h, memory)  # memory: an argument
    return h.pow(2).mean()
    # --8<-- [end:fix]


def reentrant(fn, *args):
    return checkpoint(fn, *args, use_reentrant=True)


def plain(fn, *args):
    return fn(*args)


loss_of(reentrant).backward()
got = encoder.weight.grad.clone()
encoder.zero_grad()
loss_of(plain).backward()  # no checkpointing: the gradient to match
print(
    "encoder gradient as without checkpointing:",
    torch.allclose(got, encoder.weight.grad),
)
