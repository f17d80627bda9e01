import torch
from torch import nn


class Trainer:
    def __init__(self):
        self.model = nn.Linear(4, 1)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)

    def forward_step(self, x, y):
        if not torch.isfinite(x).all():
            return None  # bad batch: nothing to learn from
        pred = self.model(x)
        return nn.functional.mse_loss(pred, y)

    def update(self, loss):
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()


torch.manual_seed(0)
trainer = Trainer()
batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(4)]
batches[2][0][0, 0] = float("nan")  # one corrupt sample
# --8<-- [start:fix]
for step, (x, y) in enumerate(batches):
    loss = trainer.forward_step(x, y)
    if loss is None:  # the skip now skips the update too
        print(f"step {step}: skipped")
        continue
    trainer.update(loss)
    # --8<-- [end:fix]
    print(f"step {step}: loss {loss.item():.4f}")
