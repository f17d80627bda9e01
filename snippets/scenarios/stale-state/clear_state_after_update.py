import torch
from torch import nn


class Trainer:
    def __init__(self):
        self.model = nn.Linear(4, 1)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.pred = self.loss = None

    def forward_step(self, x, y):
        if not torch.isfinite(x).all():
            return  # bad batch: skip it
        self.pred = self.model(x)
        self.loss = nn.functional.mse_loss(self.pred, y)

    def update(self):
        if self.loss is None:  # the guard: no new loss, no update
            return None
        self.opt.zero_grad()
        self.loss.backward()
        self.opt.step()
        value = self.loss.item()
        self.pred = self.loss = None  # this step's tensors are spent
        return value


torch.manual_seed(0)
trainer = Trainer()
batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(4)]
batches[2][0][0, 0] = float("nan")  # one corrupt sample
for step, (x, y) in enumerate(batches):
    trainer.forward_step(x, y)
    value = trainer.update()
    shown = "skipped" if value is None else f"loss {value:.4f}"
    print(f"step {step}: {shown}")
