# The encoder's output made once, before the training loop, and read by
# a checkpointed block at every step: passing it in is not enough, the
# first step's update has made it stale.
import torch
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)
encoder = torch.nn.Linear(4, 4)
block = torch.nn.Linear(4, 4)
opt = torch.optim.SGD([*encoder.parameters(), *block.parameters()], 0.1)
x = torch.randn(3, 4)

memory = encoder(x)  # once, before the loop


def layer(h, memory):
    return torch.tanh(block(h) + memory)


for step in range(3):
    h = torch.randn(3, 4, requires_grad=True)
    loss = (
        checkpoint(layer, h, memory, use_reentrant=True).pow(2).mean()
    )
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
