import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1, bias=False)
x, t = torch.randn(32, 3), torch.randn(32, 1)


def loss_fn(weight):
    pred = torch.func.functional_call(model, {"weight": weight}, x)
    return nn.functional.mse_loss(torch.tanh(pred), t)


loss = loss_fn(model.weight)
(g,) = torch.autograd.grad(loss, model.weight, create_graph=True)

# Each product walks g's graph: keep it for all but the last one.
basis = torch.eye(3)
rows = []
for i, e in enumerate(basis):
    (row,) = torch.autograd.grad(
        g,
        model.weight,
        grad_outputs=e.view(1, 3),
        retain_graph=i < len(basis) - 1,
    )
    rows.append(row.view(3))
H = torch.stack(rows)

reference = torch.autograd.functional.hessian(loss_fn, model.weight)
print(f"{len(rows)} products from one gradient")
print(
    "equal to the full Hessian:",
    torch.allclose(H, reference.view(3, 3), atol=1e-6),
)
