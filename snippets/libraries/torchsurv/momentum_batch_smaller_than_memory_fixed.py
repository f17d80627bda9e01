"""Source: https://github.com/Novartis/torchsurv/issues/44

Library: torchsurv 0.2.0 and pytorch-lightning 2.6.6, run unmodified.
The fix: tell Momentum the batch size the loader gives it, so that
its memory of online estimates holds this step's batch only.
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
        memory_q = [m.estimate for m in self.model.memory_q]
        fresh = torch.allclose(
            torch.stack(memory_q), self.model.online(x)
        )
        print(f"step {batch_idx}: loss {loss.item():.2f}")
        print(f"  online memory is this batch: {fresh}")
        return loss

    def on_after_backward(self):
        w = self.model.online[1].weight.grad
        print(f"  |grad| of the online network {w.norm():.3f}")


BATCH_SIZE = 100  # the example's 500, lowered: below 160 it fails
FACTOR = 10  # batches kept in memory
backbone = torch.nn.Sequential(
    torch.nn.Flatten(), torch.nn.Linear(64, 1)
)
# --8<-- [start:fix]
momentum = Momentum(
    backbone,
    neg_partial_log_likelihood,
    batchsize=BATCH_SIZE // FACTOR,  # the loader's batch size
    steps=FACTOR,
    rate=0.999,
)
model_momentum = LitMomentum(backbone=momentum)
loader = DataLoader(
    CustomDataset(), batch_size=BATCH_SIZE // FACTOR, drop_last=True
)
# --8<-- [end:fix]
trainer = L.Trainer(
    max_steps=3,
    accelerator="cpu",
    logger=False,
    enable_checkpointing=False,
    enable_progress_bar=False,
    enable_model_summary=False,
)
trainer.fit(model_momentum, loader)
