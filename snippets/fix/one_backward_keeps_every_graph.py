import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))
batch, target = torch.randn(12, 8), torch.randn(12, 1)


def nodes(loss):
    """Graph nodes behind a loss: what its backward still has to run."""
    seen, todo = set(), [loss.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo += [child for child, _ in node.next_functions]
    return len(seen)


# Gradient accumulation over 3 sub-batches, two ways.
alive = {"one backward of the sum": [], "a backward per sub-batch": []}
total = 0
for x, y in zip(batch.chunk(3), target.chunk(3)):
    total = total + nn.functional.mse_loss(model(x), y)
    alive["one backward of the sum"].append(nodes(total))
total.backward()
summed = [p.grad.clone() for p in model.parameters()]

model.zero_grad()
for x, y in zip(batch.chunk(3), target.chunk(3)):
    loss = nn.functional.mse_loss(model(x), y)
    alive["a backward per sub-batch"].append(nodes(loss))
    loss.backward()
apart = [p.grad for p in model.parameters()]

for way, counts in alive.items():
    print(f"{way}: nodes alive {counts}")
same = all(
    torch.allclose(a, b, atol=1e-6) for a, b in zip(summed, apart)
)
print(f"same gradients: {same}")
