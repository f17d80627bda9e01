import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(16, 3)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
opt = torch.optim.LBFGS(model.parameters())
evaluations = []


# --8<-- [start:fix]
def closure():
    opt.zero_grad()
    # A new forward on every call: a new graph, at the weights
    # LBFGS has just moved to.
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    evaluations.append(loss.item())
    return loss
    # --8<-- [end:fix]


for step in range(3):
    evaluations.clear()
    opt.step(closure)
    with torch.no_grad():
        after = nn.functional.mse_loss(model(x), y).item()
    print(
        f"step {step}: closure called {len(evaluations)} times, "
        f"loss {evaluations[0]:.4f} -> {after:.4f}"
    )
