import torch
from torch import nn
from torch.nn.functional import cross_entropy


def sgd_step_on_data(params, lr=0.1):
    # The pre-1.0 idiom many hand-written optimizers still use.
    for p in params:
        p.data.add_(p.grad, alpha=-lr)


def grads_at(model, x, y_hat):
    # A fresh forward: the gradient of the estimate at these weights.
    loss_hat = cross_entropy(model(x), y_hat)
    return torch.autograd.grad(loss_hat, list(model.parameters()))


torch.manual_seed(0)
x = torch.randn(16, 4)
y = torch.randint(0, 3, (16,))
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
weight = model[2].weight  # saved by the graph, for the Tanh's grad

logits = model(x)
y_hat = torch.distributions.Categorical(logits=logits.detach()).sample()
before_step = grads_at(model, x, y_hat)
loss = cross_entropy(logits, y)
loss.backward(retain_graph=True)  # keep the graph for the estimate
version = weight._version
sgd_step_on_data(model.parameters())  # writes p.data, not p
model.zero_grad()
print(f"last layer's weight: version {version} -> {weight._version}")

after_step = grads_at(model, x, y_hat)
cross_entropy(logits, y_hat).backward()  # no error
got = [p.grad for p in model.parameters()]
at_forward = all(map(torch.allclose, got, before_step))
at_updated = all(map(torch.allclose, got, after_step))
print(
    f"estimate = gradient at the forward's weights: {at_forward}, "
    f"at the updated weights: {at_updated}"
)
