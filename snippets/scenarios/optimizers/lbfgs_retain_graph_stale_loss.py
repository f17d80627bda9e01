import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(16, 3)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3
# One layer on the data: its graph saves no weight, so nothing
# raises when LBFGS moves the weights under the retained graph.
model = nn.Linear(3, 1)
opt = torch.optim.LBFGS(model.parameters())
loss = nn.functional.mse_loss(model(x), y)


def closure():
    opt.zero_grad()
    loss.backward(retain_graph=True)
    with torch.no_grad():
        real = nn.functional.mse_loss(model(x), y)
    print(
        f"LBFGS is told loss = {loss.item():.4f}, "
        f"the model's loss is {real.item():.4f}"
    )
    return loss


opt.step(closure)
with torch.no_grad():
    after = nn.functional.mse_loss(model(x), y).item()
print(f"step() returned, loss now {after:.4f}")
