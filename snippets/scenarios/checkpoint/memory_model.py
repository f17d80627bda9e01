import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class MemoryModel(nn.Module):
    """Blocks that a flag puts under checkpoint, as in a library
    model, and a memory of the last batch that the next step reads."""

    def __init__(self, detach_memory=False):
        super().__init__()
        self.embed = nn.Linear(4, 16)
        self.blocks = nn.ModuleList(
            nn.Sequential(nn.Linear(16, 16), nn.Tanh())
            for _ in range(3)
        )
        self.head = nn.Linear(16, 1)
        self.checkpoint_kwargs = None
        self.memory = None  # cached across steps
        self.detach_memory = detach_memory

    def gradient_checkpointing_enable(self, **checkpoint_kwargs):
        self.checkpoint_kwargs = checkpoint_kwargs

    def forward(self, x):
        h = self.embed(x)
        if self.memory is not None:
            h = h + self.memory
        for block in self.blocks:
            if self.checkpoint_kwargs is not None:
                h = checkpoint(block, h, **self.checkpoint_kwargs)
            else:
                h = block(h)
        memory = h.mean(dim=0, keepdim=True)
        # Without detach, the memory carries this step's graph along.
        self.memory = memory.detach() if self.detach_memory else memory
        return self.head(h)


def train(model, steps=3):
    torch.manual_seed(1)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    for step in range(steps):
        x = torch.randn(8, 4)
        loss = nn.functional.mse_loss(model(x), x.sum(1, keepdim=True))
        opt.zero_grad()
        loss.backward()  # one backward per step
        opt.step()
    return loss


MODES = [None, {"use_reentrant": True}, {"use_reentrant": False}]

if __name__ == "__main__":
    for kwargs in MODES:
        torch.manual_seed(0)
        model = MemoryModel()
        if kwargs is not None:
            model.gradient_checkpointing_enable(**kwargs)
        try:
            train(model)
        except RuntimeError as err:
            print(f"checkpointing {kwargs}: {str(err).split(' (')[0]}")
