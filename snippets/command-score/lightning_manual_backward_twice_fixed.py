# https://github.com/Lightning-AI/pytorch-lightning/issues/2820
"""The fix for lightning_manual_backward_twice.py: do not keep a penalty
with a graph across steps. Lazy regularization adds the penalty only on
the steps that compute it (scaled by reg_every, so that on average it
weighs as much as a penalty on every step); each step's loss is built
from this step's forward, and self.manual_backward(loss) runs once per
graph.
(reg_every=1 recomputes the penalty at every step instead.)
Proof: the loss, whether the penalty is in it, and the gradient norm
at each step.
"""

import logging
import warnings

import pytorch_lightning as pl
import torch

logging.getLogger("pytorch_lightning").setLevel(logging.ERROR)
warnings.filterwarnings("ignore", ".*does not have many workers.*")
warnings.filterwarnings("ignore", ".*LeafSpec.*")
torch.manual_seed(0)


class LazyRegularized(pl.LightningModule):
    def __init__(self, reg_every=2):
        super().__init__()
        self.automatic_optimization = False
        self.reg_every = reg_every
        self.net = torch.nn.Sequential(
            torch.nn.Linear(4, 8),
            torch.nn.Tanh(),
            torch.nn.Linear(8, 1),
        )

    def training_step(self, batch, batch_idx):
        opt = self.optimizers()
        x, y = batch
        loss = torch.nn.functional.mse_loss(self.net(x), y)
        with_penalty = batch_idx % self.reg_every == 0
        if with_penalty:  # the fix: made and used in the same step
            loss = (
                loss + self.reg_every * 0.1 * self.net(x).pow(2).mean()
            )
        opt.zero_grad()
        self.manual_backward(loss)
        norm = torch.stack(
            [p.grad.norm() for p in self.parameters()]
        ).norm()
        print(
            f"step {batch_idx}: loss {loss.item():.3f}  "
            f"penalty {'in' if with_penalty else 'out'}  "
            f"grad norm {norm.item():.3f}"
        )
        opt.step()

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=0.01)


x = torch.randn(12, 4)
data = torch.utils.data.TensorDataset(x, x.sum(1, keepdim=True))
loader = torch.utils.data.DataLoader(data, batch_size=4)
model = LazyRegularized()
trainer = pl.Trainer(
    max_steps=3,
    accelerator="cpu",
    logger=False,
    enable_checkpointing=False,
    enable_progress_bar=False,
    enable_model_summary=False,
)
trainer.fit(model, loader)
