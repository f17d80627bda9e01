import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
x, target = torch.randn(8, 3), torch.randn(8, 1)

value = nn.functional.mse_loss(model(x), target).item()
can_backward = hasattr(value, "backward")
print(f"{type(value).__name__}, .backward: {can_backward}")
# Turned back into a tensor, the number has no history to go back to.
loss = torch.tensor(value)
loss.backward()
