import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
x, target = torch.randn(8, 3), torch.randn(8, 1)

# .detach() added to "fix" the backward-twice error, on the wrong
# tensor: it cuts the loss off from the model.
pred = model(x).detach()
loss = nn.functional.mse_loss(pred, target)
print(f"loss.grad_fn = {loss.grad_fn}")
loss.backward()
