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
        self.loss.backward(retain_graph=True)  # the "fix"
        self.opt.step()


torch.manual_seed(0)
trainer = Trainer()
batches = [(torch.randn(8, 4), torch.randn(8, 1)) for _ in range(4)]
batches[2][0][0, 0] = float("nan")  # one corrupt sample
w = trainer.model.weight
last_grad = None
for step, (x, y) in enumerate(batches):
    before = w.detach().clone()
    trainer.forward_step(x, y)
    trainer.update()
    moved = (w - before).norm().item()
    again = last_grad is not None and torch.equal(w.grad, last_grad)
    print(
        f"step {step}: weight moved {moved:.4f}, "
        f"same gradient as the step before: {again}"
    )
    last_grad = w.grad.clone()
