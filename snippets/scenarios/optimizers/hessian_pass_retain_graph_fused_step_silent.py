import torch
from torch import nn
from torch.distributions import Categorical
from torch.nn.functional import cross_entropy


def grads_at(model, x, y_hat):
    # A fresh forward: the gradient of the estimate at these weights.
    loss_hat = cross_entropy(model(x), y_hat)
    return torch.autograd.grad(loss_hat, list(model.parameters()))


def retain_step_backward(optimizer, **impl):
    torch.manual_seed(0)
    x = torch.randn(16, 4)
    y = torch.randint(0, 3, (16,))
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
    opt = optimizer(model.parameters(), lr=0.1, **impl)
    weight = model[2].weight  # saved by the graph, for the Tanh's grad

    logits = model(x)
    y_hat = Categorical(logits=logits.detach()).sample()
    before_step = grads_at(model, x, y_hat)
    cross_entropy(logits, y).backward(retain_graph=True)
    version = weight._version
    opt.step()  # the step between the retained passes
    opt.zero_grad()
    versions = f"version {version} -> {weight._version}"
    after_step = grads_at(model, x, y_hat)
    try:
        cross_entropy(logits, y_hat).backward()
    except RuntimeError as error:
        assert "modified by an inplace operation" in str(error)
        return f"{versions}, the second backward raises"
    got = [p.grad for p in model.parameters()]
    at_forward = all(map(torch.allclose, got, before_step))
    at_updated = all(map(torch.allclose, got, after_step))
    return (
        f"{versions}, no error\n  gradient = at the forward's weights: "
        f"{at_forward}, at the updated weights: {at_updated}"
    )


for optimizer in (torch.optim.SGD, torch.optim.Adam, torch.optim.AdamW):
    for impl in ({}, {"foreach": True}, {"fused": True}):
        form = next(iter(impl), "default")
        print(f"{optimizer.__name__}, {form}:")
        print("  " + retain_step_backward(optimizer, **impl))
