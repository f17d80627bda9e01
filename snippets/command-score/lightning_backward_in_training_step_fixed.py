# https://github.com/VinAIResearch/PSENet-Image-Enhancement/issues/1
"""The fix for lightning_backward_in_training_step.py: remove the user's
own loss.backward(). In automatic optimization Lightning backpropagates
the loss that training_step returns (inside Adam.step()'s closure),
once.
Proof: the loss and the parameters' gradient norm at each step, read in
on_before_optimizer_step (after Lightning's backward, before the
update).
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
        self.last_loss = loss.item()
        # the fix: no loss.backward() here; Lightning runs it
        return loss

    def on_before_optimizer_step(self, optimizer):
        grads = [p.grad.norm() for p in self.parameters()]
        norm = torch.stack(grads).norm().item()
        print(
            f"step {self.global_step}: loss {self.last_loss:.3f}  "
            f"grad norm {norm:.3f}"
        )

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
