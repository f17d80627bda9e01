import torch
from torch import nn
from torch.nn.functional import mse_loss

torch.manual_seed(0)
x = torch.randn(16, 3)
y = x @ torch.tensor([[1.0, 0.5], [-2.0, 0.0], [0.5, 1.0]])
# One layer on the data: its graph saves no weight, so the
# in-place move to w + e goes unnoticed.
model = nn.Linear(3, 2)
params = list(model.parameters())
rho = 0.05

output = model(x)
addmm = output.grad_fn  # the layer's node: what did it save?
print(f"weight saved by the graph: {addmm._saved_mat2 is not None}")
loss = mse_loss(output, y)
g_at_w = torch.autograd.grad(loss, params, retain_graph=True)
with torch.no_grad():
    norm = torch.cat([g.flatten() for g in g_at_w]).norm()
    for p, g in zip(params, g_at_w):
        p.add_(rho * g / norm)  # climb to w + e

# Pass 2 through the retained graph: no error.
g_retained = torch.autograd.grad(mse_loss(output, y), params)
# Pass 2 with a fresh forward: the gradient SAM wants.
g_at_e = torch.autograd.grad(mse_loss(model(x), y), params)


def gap(a, b):
    return max((u - v).abs().max().item() for u, v in zip(a, b))


print(f"pass 2 vs the gradient at w:     {gap(g_retained, g_at_w):.4f}")
print(f"pass 2 vs the gradient at w + e: {gap(g_retained, g_at_e):.4f}")
same = all(torch.equal(u, v) for u, v in zip(g_retained, g_at_w))
print(f"pass 2 equals the gradient at w (torch.equal): {same}")
