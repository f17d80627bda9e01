import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
total = 0.0
for step in range(2):
    x, target = torch.randn(4, 3), torch.randn(4, 1)
    loss = nn.functional.mse_loss(model(x), target)
    total = total + loss  # a running total, kept as a tensor


def print_graph(node, depth=0, seen=None):
    """Each node once, indented under the node that leads to it."""
    seen = set() if seen is None else seen
    name = type(node).__name__
    if hasattr(node, "variable"):  # AccumulateGrad: a leaf's .grad
        name += f" (leaf {tuple(node.variable.shape)})"
    if node in seen:
        print("  " * depth + name + " (again)")
        return
    seen.add(node)
    print("  " * depth + name)
    for child, _ in node.next_functions:
        if child is not None:  # None: an input without grad
            print_graph(child, depth + 1, seen)


print_graph(total.grad_fn)
