import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 2))
x = torch.randn(3, requires_grad=True)
out = model(x)  # two outputs: the Jacobian has two rows

rows = []
for i in range(len(out)):
    last = i == len(out) - 1
    # One backward pass per row over the same graph: keep the saved
    # tensors for every pass but the last, which may free them.
    (row,) = torch.autograd.grad(out[i], x, retain_graph=not last)
    rows.append(row)
jac = torch.stack(rows)

expected = torch.autograd.functional.jacobian(model, x)
print(f"jacobian {tuple(jac.shape)}: {torch.allclose(jac, expected)}")
print(f"x.grad is None: {x.grad is None}")
