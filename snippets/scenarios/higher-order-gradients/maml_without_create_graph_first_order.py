import torch
from torch import nn
from torch.func import functional_call

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
x = torch.rand(20, 1) * 6 - 3
y = 1.5 * torch.sin(x)
(xs, ys), (xq, yq) = (x[:10], y[:10]), (x[10:], y[10:])


def meta_grads(create_graph, detach_inner=False):
    params = dict(model.named_parameters())
    support_loss = nn.functional.mse_loss(
        functional_call(model, params, (xs,)), ys
    )
    grads = torch.autograd.grad(
        support_loss, list(params.values()), create_graph=create_graph
    )
    if detach_inner:
        grads = [g.detach() for g in grads]
    fast = {
        name: p - 0.1 * g for (name, p), g in zip(params.items(), grads)
    }
    query_loss = nn.functional.mse_loss(
        functional_call(model, fast, (xq,)), yq
    )
    return torch.autograd.grad(query_loss, list(params.values()))


full = meta_grads(create_graph=True)
no_create = meta_grads(create_graph=False)  # runs without an error
first_order = meta_grads(create_graph=True, detach_inner=True)

print(
    "without create_graph, equal to full MAML:",
    all(map(torch.allclose, no_create, full)),
)
print(
    "without create_graph, equal to first-order MAML:",
    all(map(torch.equal, no_create, first_order)),
)
