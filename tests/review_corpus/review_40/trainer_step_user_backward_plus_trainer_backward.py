# written (realistic): Lightning/HF-Trainer-style loop with automatic optimization.
# The user's training_step calls loss.backward() itself (habit from plain PyTorch)
# and returns the loss; the trainer then backwards the returned loss again
# before optimizer.step(). Intent: ordinary supervised training of the model.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class LitRegressor(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, 1))

    def training_step(self, batch):
        x, y = batch
        loss = F.mse_loss(self.net(x), y)
        loss.backward()  # user's own backward
        return loss


def fit(module, batches, lr=1e-2):  # the "trainer" (automatic optimization)
    opt = torch.optim.Adam(module.parameters(), lr=lr)
    for i, batch in enumerate(batches):
        opt.zero_grad()
        loss = module.training_step(batch)
        loss.backward()  # trainer's backward -> RuntimeError
        opt.step()
        print(i, loss.item())


w = torch.randn(5, 1)
batches = [(x, x @ w) for x in torch.randn(4, 16, 5)]
fit(LitRegressor(), batches)
