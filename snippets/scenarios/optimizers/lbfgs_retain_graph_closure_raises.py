import torch
from torch import nn

torch.manual_seed(0)
x = torch.randn(16, 3)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3
model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
opt = torch.optim.LBFGS(model.parameters())
loss = nn.functional.mse_loss(model(x), y)


def closure():
    opt.zero_grad()
    loss.backward(retain_graph=True)  # silences the first error
    print(f"closure called, loss = {loss.item():.4f}")
    return loss


# Between two calls LBFGS moves the weights in place. The graph
# saved the last layer's weight (for the gradient of its input).
opt.step(closure)
