# The other fix: use_reentrant=False. The checkpointed function's
# graph is recorded as usual (its saved tensors dropped and made again
# in backward), so the outer backward runs memory's graph once.
import torch
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
encoder = torch.nn.Linear(4, 4)
embed = torch.nn.Linear(4, 4)  # the decoder's input
blocks = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(2))
x = torch.randn(3, 4)


def loss_of(checkpointed):
    memory = encoder(x)

    def block(i, h):
        return torch.tanh(blocks[i](h) + memory)

    h = embed(x)
    for i in range(2):
        if checkpointed:
            h = checkpoint(block, i, h, use_reentrant=False)
        else:
            h = block(i, h)
    return h.pow(2).mean()


loss_of(True).backward()
got = encoder.weight.grad.clone()
encoder.zero_grad()
loss_of(False).backward()
print(
    "encoder gradient as without checkpointing:",
    torch.allclose(got, encoder.weight.grad),
)
