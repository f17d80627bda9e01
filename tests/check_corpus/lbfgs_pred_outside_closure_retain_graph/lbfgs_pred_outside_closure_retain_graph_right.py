# https://github.com/pytorch/pytorch/issues/111369
import torch
from torch import nn, optim

torch.manual_seed(0)
x = torch.rand(size=(100, 10))
y = x @ torch.randn(10, 1) + 0.1 * torch.randn(100, 1)


class LinearRegression(nn.Module):
    def __init__(self, p):
        super().__init__()
        self.p = p
        self.lin = nn.Linear(p, 1)

    def forward(self, x):
        return self.lin(x)


model = LinearRegression(x.size(1))
optimizer = optim.LBFGS(model.parameters(), max_iter=10)
criterion = nn.MSELoss()


def fresh_grad():
    loss = criterion(model(x), y.view(-1, 1))
    return torch.cat([g.flatten() for g in torch.autograd.grad(loss, list(model.parameters()))])


for step in range(8):
    diffs, seen = [], []

    def closure():
        optimizer.zero_grad()
        pred = model(x)
        loss = criterion(pred, y.view(pred.shape))
        loss.backward()
        used = torch.cat([p.grad.flatten() for p in model.parameters()])
        fresh = fresh_grad()
        diffs.append(((used - fresh).norm() / fresh.norm()).item())
        seen.append(loss.item())
        return loss

    optimizer.step(closure)
    with torch.no_grad():
        true_loss = criterion(model(x), y.view(-1, 1)).item()
    print(f"step {step}: closure evals {len(diffs)}, max rel diff |grad used - fresh grad|/|fresh| "
          f"{max(diffs):.3f}, losses returned by closure {min(seen):.4f}..{max(seen):.4f}, "
          f"actual loss after step {true_loss:.4f}")
