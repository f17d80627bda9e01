import torch
from torch import nn


def graph_size(node):
    """Nodes reachable from node, and the bytes of what they saved."""
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
    return len(seen), sum(storages.values())


torch.manual_seed(0)
model = nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x, y = torch.randn(16, 4), torch.randn(16, 1)
w = model.weight

total, all_steps = 0.0, torch.zeros_like(w)
for step in range(4):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    total = total + loss
    # The right gradient: this step's loss only.
    (right,) = torch.autograd.grad(loss, w, retain_graph=True)
    all_steps += right
    total.backward(retain_graph=True)  # the "fix"
    opt.step()
    ratio = w.grad.norm() / right.norm()
    summed = torch.allclose(w.grad, all_steps)
    nodes, held = graph_size(total.grad_fn)
    print(
        f"step {step}: {nodes:2d} nodes, {held} bytes saved, "
        f"gradient x{ratio:.2f}, = sum of steps 0-{step}: {summed}"
    )
