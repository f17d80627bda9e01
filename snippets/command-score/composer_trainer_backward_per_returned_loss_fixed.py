"""Composer's fix: the Trainer sums the losses the model returns and
runs one backward().

Source: https://github.com/mosaicml/composer/pull/1240
The user wanted to train a model whose loss() returns two losses (a
task loss and an auxiliary loss on a shared trunk) with Composer's
Trainer, with gradient accumulation over microbatches.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


def ensure_tuple(x):
    return tuple(x) if isinstance(x, (tuple, list)) else (x,)


class TwoLossModel(nn.Module):
    """A ComposerModel: forward(batch), then loss(outputs, batch)."""

    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
        self.head = nn.Linear(16, 3)
        self.aux = nn.Linear(16, 6)

    def forward(self, batch):
        x, _ = batch
        h = self.trunk(x)
        return self.head(h), self.aux(h)

    def loss(self, outputs, batch):
        x, y = batch
        logits, recon = outputs
        return F.cross_entropy(logits, y), 0.1 * F.mse_loss(recon, x)


class Trainer:
    """The part of composer.Trainer that trains one batch (no DeepSpeed,
    no grad scaling), as the pull request changed it."""

    def __init__(self, model, optimizer, grad_accum):
        self.model, self.optimizer = model, optimizer
        self.grad_accum = grad_accum

    def _train_microbatches(self, microbatches):
        self.optimizer.zero_grad()
        total_loss = torch.zeros(1)
        current_batch_size = sum(len(b[0]) for b in microbatches)
        for batch in microbatches:
            self._train_microbatch(
                batch, current_batch_size, total_loss
            )
        return total_loss

    def _train_microbatch(self, batch, current_batch_size, total_loss):
        microbatch_num_samples = len(batch[0])
        outputs = self.model(batch)
        loss = self.model.loss(outputs, batch)
        for each in ensure_tuple(loss):
            each.mul_(microbatch_num_samples / current_batch_size)
            total_loss += each.detach().clone()
        final_loss = torch.zeros(1)
        for each in ensure_tuple(loss):
            final_loss += each
        final_loss.backward()

    def fit(self, batches):
        for i, (x, y) in enumerate(batches):
            microbatches = list(
                zip(x.chunk(self.grad_accum), y.chunk(self.grad_accum))
            )
            total_loss = self._train_microbatches(microbatches)
            trunk = self.model.trunk[0].weight.grad.norm()
            aux = self.model.aux.weight.grad.norm()
            self.optimizer.step()
            print(
                f"batch {i}: loss {total_loss.item():.3f}, trunk grad "
                f"norm {trunk:.4f}, aux head grad norm {aux:.4f}"
            )


model = TwoLossModel()
trainer = Trainer(model, torch.optim.SGD(model.parameters(), lr=0.1), 2)
batches = [
    (torch.randn(8, 6), torch.randint(0, 3, (8,))) for _ in range(3)
]
trainer.fit(batches)
