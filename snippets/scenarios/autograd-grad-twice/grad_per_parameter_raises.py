import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(4, 1)
x, y = torch.randn(16, 4), torch.randn(16, 1)
loss = nn.functional.mse_loss(model(x), y)

# A hand-written SGD step, one autograd.grad call per parameter.
for name, p in model.named_parameters():
    (g,) = torch.autograd.grad(loss, p)  # frees the whole graph
    with torch.no_grad():
        p -= 0.1 * g
    print(f"{name}: updated")
