import torch
from torch import nn


def saved_bytes(node):
    """Bytes of the tensors saved in the graph behind node."""
    seen, todo, storages = set(), [node], {}
    while todo:
        n = todo.pop()
        if n is None or n in seen:
            continue
        seen.add(n)
        for attr in [a for a in dir(n) if a.startswith("_saved_")]:
            saved = getattr(n, attr)
            if isinstance(saved, torch.Tensor):  # count storage once
                storage = saved.untyped_storage()
                storages[storage.data_ptr()] = storage.nbytes()
        todo.extend(f for f, _ in n.next_functions)
    return sum(storages.values())


torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
head = nn.Linear(16, 1)
params = [*encoder.parameters(), *head.parameters()]
opt = torch.optim.SGD(params, lr=0.1)
x, y = torch.randn(32, 6), torch.randn(32, 1)
w = encoder[0].weight

features = encoder(x)

for step in range(3):
    opt.zero_grad()
    # What this step should use: features from the current weights.
    current = encoder(x)
    fresh = torch.allclose(features, current)
    (right,) = torch.autograd.grad(
        nn.functional.mse_loss(head(current), y), w
    )

    loss = nn.functional.mse_loss(head(features), y)
    loss.backward(retain_graph=True)  # the "fix"
    print(
        f"step {step}: features fresh: {fresh}, "
        f"encoder gradient right: {torch.allclose(w.grad, right)}"
    )
    opt.step()  # the encoder moves; features stay as they were

# The encoder's graph, kept alive by features, still holds its saves.
held = saved_bytes(features.grad_fn)
print(f"after 3 steps the encoder's graph still holds {held} bytes")
