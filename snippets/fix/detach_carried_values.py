import torch
from torch import nn


def count_nodes(t):
    """Graph nodes behind t: flat per step, or history piling up."""
    seen, todo = set(), [t.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo.extend(f for f, _ in node.next_functions)
    return len(seen)


torch.manual_seed(0)
cell = nn.RNNCell(3, 4)
teacher = nn.Linear(3, 4)  # trained elsewhere; only gives targets
opt = torch.optim.SGD(cell.parameters(), lr=0.1)
xs = torch.randn(3, 2, 3)  # three chunks of one long sequence

with torch.no_grad():  # form 1: made without a graph
    targets = teacher(xs)

h, total = torch.randn(2, 4), 0.0  # state of an earlier sequence
for step in range(3):
    h = h.detach()  # form 2: same values, history cut
    opt.zero_grad()
    h = cell(xs[step], h)
    loss = nn.functional.mse_loss(h, targets[step])
    loss.backward()
    opt.step()
    total += loss.item()  # form 3: a number, for the log
    trains = all(p.grad.abs().sum() > 0 for p in cell.parameters())
    print(
        f"step {step}: loss {loss.item():.4f}, "
        f"nodes {count_nodes(loss)}, cell trains: {trains}, "
        f"teacher.grad: {teacher.weight.grad}"
    )
print(f"mean loss {total / 3:.4f} (a float: {type(total) is float})")
