import torch
from torch import nn
from torch.utils.checkpoint import checkpoint


class MultiTaskNet(nn.Module):
    """A stem, a checkpointed trunk and two heads, one per task."""

    def __init__(self, **checkpoint_kwargs):
        super().__init__()
        self.stem = nn.Linear(4, 16)
        self.trunk = nn.Sequential(
            nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU()
        )
        self.head_a, self.head_b = nn.Linear(16, 1), nn.Linear(16, 1)
        # No checkpoint_kwargs: the trunk is not checkpointed.
        self.checkpoint_kwargs = checkpoint_kwargs
        self.trunk_runs = 0

    def run_trunk(self, h):
        self.trunk_runs += 1  # counts the recomputations too
        return self.trunk(h)

    def forward(self, x):
        h = torch.relu(self.stem(x))
        if self.checkpoint_kwargs:
            h = checkpoint(self.run_trunk, h, **self.checkpoint_kwargs)
        else:
            h = self.run_trunk(h)
        return self.head_a(h), self.head_b(h)


def batch():
    x = torch.randn(32, 4)
    return x, x.sum(dim=1, keepdim=True), x.prod(dim=1, keepdim=True)


def losses(model, x, y_a, y_b):
    out_a, out_b = model(x)
    mse = nn.functional.mse_loss
    return mse(out_a, y_a), mse(out_b, y_b)


if __name__ == "__main__":

    def trunk_grad(**checkpoint_kwargs):
        torch.manual_seed(0)  # the same weights and batch every time
        model = MultiTaskNet(**checkpoint_kwargs)
        loss_a, loss_b = losses(model, *batch())
        (loss_a + loss_b).backward()
        return model.trunk[0].weight.grad, model.trunk_runs

    plain, runs = trunk_grad()
    print(f"no checkpoint: trunk ran {runs} time")
    for use_reentrant in (True, False):
        grad, runs = trunk_grad(use_reentrant=use_reentrant)
        print(
            f"use_reentrant={use_reentrant}: trunk ran {runs} times, "
            f"same gradient: {torch.allclose(grad, plain)}"
        )
