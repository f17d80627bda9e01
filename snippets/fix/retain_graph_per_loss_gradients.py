import contextlib

import torch
from torch import nn


def saved_held(t):
    """How many tensors the graph behind t still holds for backward."""
    seen, todo, held = set(), [t.grad_fn], 0
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for name in dir(node):
            if name.startswith("_saved_"):
                # A freed saved tensor raises when read.
                with contextlib.suppress(RuntimeError):
                    saved = getattr(node, name)
                    held += isinstance(saved, torch.Tensor)
        todo.extend(f for f, _ in node.next_functions)
    return held


torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(3, 8), nn.ReLU())
head_a, head_b = nn.Linear(8, 1), nn.Linear(8, 1)
x, ya, yb = torch.randn(16, 3), torch.randn(16, 1), torch.randn(16, 1)
w = trunk[0].weight
h = trunk(x)
la = nn.functional.mse_loss(head_a(h), ya)
lb = nn.functional.mse_loss(head_b(h), yb)
both = la + lb  # only to look at the whole graph


def report(when):
    print(f"{when:<24}{saved_held(h):>6}{saved_held(both):>13}")


print("saved tensors held       trunk  whole graph")
report("after the forward pass")

# Each loss's own gradient on the shared weight, from one graph:
# every call but the last keeps the graph for the next one.
(ga,) = torch.autograd.grad(la, w, retain_graph=True)
report("after grad(la, retain)")
(gb,) = torch.autograd.grad(lb, w)  # the last call frees
report("after grad(lb)")
cos = nn.functional.cosine_similarity(ga.flatten(), gb.flatten(), 0)
print(f"cosine(la's gradient, lb's gradient) on w: {cos:.4f}")

# The same pair with .backward(): .grad holds the sum of both.
h = trunk(x)
la = nn.functional.mse_loss(head_a(h), ya)
lb = nn.functional.mse_loss(head_b(h), yb)
la.backward(retain_graph=True)
lb.backward()
print(f"w.grad = ga + gb: {torch.allclose(w.grad, ga + gb)}")
try:
    lb.backward()  # one more pass: the last call freed the graph
except RuntimeError as e:
    print("a third call raises:", str(e).split(" (")[0])
