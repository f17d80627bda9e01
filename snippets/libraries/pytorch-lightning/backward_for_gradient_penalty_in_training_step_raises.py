"""Source: https://github.com/Lightning-AI/pytorch-lightning/issues/1771

Library: pytorch-lightning 2.6.6, run unmodified. The thread asks
whether .backward() may be called inside training_step "if loss
depends on the gradients"; the maintainer answers that it might need
retain_graph. What the user wanted: train a regressor whose loss adds
a penalty on the gradient of its output with respect to its input,
with Lightning's automatic optimization.
"""

import logging
import warnings

import pytorch_lightning as pl
import torch

logging.getLogger("pytorch_lightning").setLevel(logging.ERROR)
warnings.filterwarnings("ignore", ".*does not have many workers.*")
warnings.filterwarnings("ignore", ".*LeafSpec.*")
torch.manual_seed(0)


class Regressor(pl.LightningModule):
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Sequential(
            torch.nn.Linear(4, 8),
            torch.nn.Tanh(),
            torch.nn.Linear(8, 1),
        )

    def training_step(self, batch, batch_idx):
        x, y = batch
        x.requires_grad_(True)
        out = self.net(x)
        out.sum().backward()  # the user's backward, to get d out / d x
        penalty = x.grad.pow(2).sum(1).mean()
        loss = torch.nn.functional.mse_loss(out, y) + penalty
        print(f"step {batch_idx}: penalty {penalty.item():.3f}")
        return loss  # Lightning backpropagates this loss

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=0.01)


x = torch.randn(12, 4)
data = torch.utils.data.TensorDataset(x, x.sum(1, keepdim=True))
loader = torch.utils.data.DataLoader(data, batch_size=4)
trainer = pl.Trainer(
    max_steps=3,
    accelerator="cpu",
    logger=False,
    enable_checkpointing=False,
    enable_progress_bar=False,
    enable_model_summary=False,
)
trainer.fit(Regressor(), loader)
