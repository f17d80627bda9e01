import torch
from torch import nn


class Trainer:
    def __init__(self):
        self.model = nn.Linear(4, 1)
        self.opt = torch.optim.SGD(self.model.parameters(), lr=0.1)
        self.bad_batch = False  # set by forward_step
        self.flag_batch = None  # which batch bad_batch describes

    def forward_step(self, step, x, y):
        self.bad_batch = not torch.isfinite(x).all().item()
        self.flag_batch = step
        return nn.functional.mse_loss(self.model(x), y)

    def update(self, loss):
        self.opt.zero_grad()
        loss.backward()
        self.opt.step()

    def should_skip(self, step):
        # The check: a flag about another batch is no answer.
        if self.flag_batch != step:
            raise RuntimeError(
                f"skip flag is from batch {self.flag_batch}, "
                f"not batch {step}"
            )
        return self.bad_batch


torch.manual_seed(0)
trainer = Trainer()
batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(4)]
batches[2][0][0, 0] = float("nan")  # one corrupt sample
for step, (x, y) in enumerate(batches):
    if trainer.bad_batch:  # read before this batch's forward sets it
        print(f"step {step}: skipped")
        continue
    loss = trainer.forward_step(step, x, y)
    trainer.update(loss)
    finite = torch.isfinite(trainer.model.weight).all().item()
    print(
        f"step {step}: loss {loss.item():.4f}, finite weights: {finite}"
    )

trainer = Trainer()
for step, (x, y) in enumerate(batches):
    if trainer.should_skip(step):  # the same order, checked
        continue
    trainer.update(trainer.forward_step(step, x, y))
