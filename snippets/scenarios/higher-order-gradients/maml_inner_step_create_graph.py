import torch
from torch import nn
from torch.func import functional_call

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
meta_opt = torch.optim.Adam(model.parameters(), lr=0.01)
inner_lr = 0.1


def task_batch():
    """A sine wave with a random amplitude: support and query sets."""
    amp = torch.rand(1) * 2 + 0.5
    x = torch.rand(20, 1) * 6 - 3
    y = amp * torch.sin(x)
    return (x[:10], y[:10]), (x[10:], y[10:])


for step in range(3):
    (xs, ys), (xq, yq) = task_batch()
    params = dict(model.named_parameters())

    # Inner step. create_graph=True makes the adapted weights depend
    # on the gradient, so the outer loss can differentiate through it.
    support_loss = nn.functional.mse_loss(
        functional_call(model, params, (xs,)), ys
    )
    grads = torch.autograd.grad(
        support_loss, list(params.values()), create_graph=True
    )
    fast = {
        name: p - inner_lr * g
        for (name, p), g in zip(params.items(), grads)
    }

    # Outer step: walks back through the inner gradient computation.
    query_loss = nn.functional.mse_loss(
        functional_call(model, fast, (xq,)), yq
    )
    meta_opt.zero_grad()
    query_loss.backward()
    meta_opt.step()
    print(f"step {step}: query loss {query_loss.item():.4f}")
