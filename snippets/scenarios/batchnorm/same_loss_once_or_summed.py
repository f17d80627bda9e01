import torch
from torch import nn


def grads(backward):
    torch.manual_seed(0)
    model = nn.Sequential(
        nn.Linear(3, 8), nn.BatchNorm1d(8), nn.Linear(8, 1)
    )
    x, y = torch.randn(16, 3), torch.randn(16, 1)
    loss = nn.functional.mse_loss(model(x), y)
    backward(loss)
    counted = model[1].num_batches_tracked.item()
    return [p.grad.clone() for p in model.parameters()], counted


def once(loss):
    loss.backward()


def twice_retained(loss):
    loss.backward(retain_graph=True)
    loss.backward()


def summed(loss):
    (loss + loss).backward()  # both passes' gradients, one pass


for backward in (once, twice_retained, summed):
    g, counted = grads(backward)
    print(
        f"{backward.__name__:14} first weight grad norm "
        f"{g[0].norm():.4f}, BatchNorm forwards {counted}"
    )
same = all(
    torch.allclose(a, b)
    for a, b in zip(grads(twice_retained)[0], grads(summed)[0])
)
print(f"twice_retained and summed give the same gradients: {same}")
