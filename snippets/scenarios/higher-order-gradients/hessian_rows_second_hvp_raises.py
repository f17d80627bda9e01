import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1, bias=False)
x, t = torch.randn(32, 3), torch.randn(32, 1)

loss = nn.functional.mse_loss(torch.tanh(model(x)), t)
(g,) = torch.autograd.grad(loss, model.weight, create_graph=True)

# One Hessian row per basis vector: a Hessian-vector product each.
rows = []
for e in torch.eye(3):
    (row,) = torch.autograd.grad(
        g, model.weight, grad_outputs=e.view(1, 3)
    )
    rows.append(row)
    print(f"row {len(rows)} done")
