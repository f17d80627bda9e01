# A small ResNet-style classifier whose residual stages run under
# activation checkpointing (use_reentrant=False), with BatchNorm in train
# mode and a drop-path rate warmed up linearly. The warmup counter is
# kept by the block itself: forward does self.calls += 1 and reads the
# rate from it. The backward's recomputation runs forward again, counts
# again and drops paths at a higher rate than the forward did (the RNG
# state is kept, the rate is not): other masks and scales, no error.
import copy

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)


def drop_path(x, rate):
    keep = (torch.rand(x.shape[0], 1, 1, 1) >= rate).to(x.dtype)
    return x * keep / (1 - rate)


class ResBlock(nn.Module):
    def __init__(self, c, max_rate=0.3, warmup=40):
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c), nn.ReLU(),
            nn.Conv2d(c, c, 3, padding=1), nn.BatchNorm2d(c),
        )
        self.max_rate, self.warmup = max_rate, warmup
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        rate = self.max_rate * min(1.0, self.calls / self.warmup)
        return F.relu(x + drop_path(self.body(x), rate))


class Net(nn.Module):
    def __init__(self, c=8, classes=4):
        super().__init__()
        self.stem = nn.Conv2d(3, c, 3, padding=1)
        self.blocks = nn.ModuleList(ResBlock(c) for _ in range(2))
        self.head = nn.Linear(c, classes)
        self.checkpointing = True

    def forward(self, x):
        h = self.stem(x)
        for block in self.blocks:
            h = checkpoint(block, h, use_reentrant=False) if self.checkpointing else block(h)
        return self.head(h.mean(dim=(2, 3)))


model = Net()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
images = torch.randn(6, 8, 3, 8, 8)
labels = torch.randint(0, 4, (6, 8))
for step in range(6):
    off = copy.deepcopy(model)
    off.checkpointing = False
    rng = torch.get_rng_state()
    loss_off = F.cross_entropy(off(images[step]), labels[step])
    want = torch.autograd.grad(loss_off, list(off.parameters()))
    torch.set_rng_state(rng)

    loss = F.cross_entropy(model(images[step]), labels[step])
    optimizer.zero_grad()
    loss.backward()
    got = [p.grad for p in model.parameters()]
    same = all(map(torch.allclose, got, want))
    err = max(((g - w).norm() / w.norm()).item() for g, w in zip(got, want))
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f} (off {loss_off.item():.4f}), "
          f"grads = checkpointing off: {same}, worst relative error {err:.3f}, "
          f"block calls {model.blocks[0].calls}")
