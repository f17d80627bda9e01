import torch
from torch import nn


class Trainer:
    def __init__(self):
        self.model = nn.Linear(4, 1)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def forward_step(self, x, y):
        if not torch.isfinite(x).all():
            return  # bad batch: skip it
        self.pred = self.model(x)
        self.loss = nn.functional.mse_loss(self.pred, y)

    def update(self):
        self.opt.zero_grad()
        self.loss.backward()  # after a skip: last step's loss
        self.opt.step()


torch.manual_seed(0)
trainer = Trainer()
batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(4)]
batches[2][0][0, 0] = float("nan")  # one corrupt sample
for step, (x, y) in enumerate(batches):
    trainer.forward_step(x, y)
    trainer.update()
    print(f"step {step}: loss {trainer.loss.item():.4f}")
