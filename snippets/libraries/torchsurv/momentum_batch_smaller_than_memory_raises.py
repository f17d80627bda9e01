"""Source: https://github.com/Novartis/torchsurv/issues/44

Library: torchsurv 0.2.0 and pytorch-lightning 2.6.6, run unmodified.
The reporter ran torchsurv's Momentum example (a Cox model trained
with a memory bank of past batches, BATCH_SIZE // FACTOR samples per
step) on a dataset of their own: with BATCH_SIZE of 160 or more it
trained, below 160 it raised. What the user wanted: train the Cox
model with Momentum on batches smaller than the example's.
"""

import logging
import warnings

import pytorch_lightning as L
import torch
from torch.utils.data import DataLoader, Dataset
from torchsurv.loss.cox import neg_partial_log_likelihood
from torchsurv.loss.momentum import Momentum

logging.getLogger("pytorch_lightning").setLevel(logging.ERROR)
warnings.filterwarnings("ignore", ".*does not have many workers.*")
warnings.filterwarnings("ignore", ".*LeafSpec.*")
warnings.filterwarnings("ignore", ".*Ties in `time`.*")
torch.manual_seed(0)


class CustomDataset(Dataset):
    def __init__(self):
        self.images = torch.rand((40, 1, 8, 8))
        self.labels = torch.arange(10).repeat(4)  # digits 0 to 9

    def __len__(self):
        return len(self.images)

    def __getitem__(self, idx):
        return self.images[idx], self.labels[idx]


class LitMomentum(L.LightningModule):
    def __init__(self, backbone):
        super().__init__()
        self.learning_rate = 1e-3
        self.model = backbone

    def configure_optimizers(self):
        lr = self.learning_rate
        return torch.optim.Adam(self.parameters(), lr=lr)

    def forward(self, x, event, time):
        return self.model(x, event, time)

    def training_step(self, batch, batch_idx):
        x, y = batch
        y[y == 0] = 10  # Offset 0 to prevent log(0)
        loss = self(x, torch.ones_like(y).bool(), y.float())
        print(f"step {batch_idx}: loss {loss.item():.2f}")
        return loss


BATCH_SIZE = 100  # the example's 500, lowered: below 160 it fails
FACTOR = 10  # batches kept in memory
backbone = torch.nn.Sequential(
    torch.nn.Flatten(), torch.nn.Linear(64, 1)
)
momentum = Momentum(
    backbone, neg_partial_log_likelihood, steps=FACTOR, rate=0.999
)
model_momentum = LitMomentum(backbone=momentum)
loader = DataLoader(CustomDataset(), batch_size=BATCH_SIZE // FACTOR)
trainer = L.Trainer(
    max_epochs=1,
    accelerator="cpu",
    logger=False,
    enable_checkpointing=False,
    enable_progress_bar=False,
    enable_model_summary=False,
)
trainer.fit(model_momentum, loader)
