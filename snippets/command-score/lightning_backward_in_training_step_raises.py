# https://github.com/VinAIResearch/PSENet-Image-Enhancement/issues/1
"""A LightningModule whose training_step calls loss.backward() itself
and returns the loss (automatic optimization). Lightning backpropagates
the returned loss again, inside Adam.step()'s closure, through the graph
the user's backward freed: RuntimeError on the first step.

Thread: a user added loss.backward() to a Lightning training_step; the
maintainer answered that Lightning calls backward itself and that the
extra line causes this error.
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
        loss = torch.nn.functional.mse_loss(self.net(x), y)
        # the bug: Lightning backpropagates the returned loss
        loss.backward()
        return loss

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
model = Regressor()
trainer.fit(model, loader)
