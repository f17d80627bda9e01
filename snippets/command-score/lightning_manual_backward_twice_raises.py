# https://github.com/Lightning-AI/pytorch-lightning/issues/2820
"""Manual optimization (self.automatic_optimization = False) with a lazy
regularizer: the penalty is computed every `reg_every` steps and kept on
`self`, and every step adds the kept value to its loss. On the step
after the one that made it, self.manual_backward(loss) runs back into
the penalty's graph, which the previous step's manual_backward freed.

Thread: a GAN with lazy R1 regularization (`d_regularize_every`) kept
the penalty on the module (`self.d_reg_loss = ...`) and hit this error.
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
        if batch_idx % self.reg_every == 0:
            # the bug: a penalty with a graph, kept on self for later
            # steps
            self.reg_loss = 0.1 * self.net(x).pow(2).mean()
        loss = (
            torch.nn.functional.mse_loss(self.net(x), y) + self.reg_loss
        )
        opt.zero_grad()
        self.manual_backward(loss)
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
