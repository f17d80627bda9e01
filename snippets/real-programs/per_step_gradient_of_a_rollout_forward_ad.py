# https://discuss.pytorch.org/t/backwards-through-a-graph-iteratively-and-efficiently/176817
import torch.autograd.forward_ad as fwAD
from torch import tensor, zeros
from torch.overrides import TorchFunctionMode


class CountOps(TorchFunctionMode):
    """Counts the torch operations run inside it."""

    def __init__(self):
        super().__init__()
        self.n = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.n += 1
        return func(*args, **(kwargs or {}))


def forward_mode(steps):
    """Every dy[i]/dx in one forward pass: x carries the tangent 1."""
    ops = CountOps()
    with fwAD.dual_level():
        x = fwAD.make_dual(tensor([1.0]), tensor([1.0]))
        y = [zeros(1) for _ in range(steps)]
        with ops:
            y[0] += x**2
            for i in range(1, steps):
                y[i] += y[i - 1] ** 2
        grads = [fwAD.unpack_dual(v).tangent.item() for v in y]
    graph = any(v.grad_fn is not None for v in y)
    return grads, ops.n, graph


def per_step_backward(steps):
    """The page's fix: one retained backward per step."""
    ops, runs, hooked = CountOps(), [0], set()

    def count(*_):
        runs[0] += 1

    x = tensor([1.0], requires_grad=True)
    y = [zeros(1) for _ in range(steps)]
    grads = []
    for i in range(steps):
        x.grad = None
        with ops:
            y[i] += (x if i == 0 else y[i - 1]) ** 2
        todo = [y[i].grad_fn]  # hook each node once, to count runs
        while todo:
            node = todo.pop()
            if node is not None and node not in hooked:
                hooked.add(node)
                node.register_hook(count)
                todo.extend(f for f, _ in node.next_functions)
        y[i].backward(retain_graph=i < steps - 1)
        grads.append(x.grad.item())
    return grads, ops.n, runs[0]


grads, _, graph = forward_mode(5)
for i, g in enumerate(grads):
    print(f"step {i}: dy/dx = {g:.3f}")
same = grads == per_step_backward(5)[0]
print(f"equal to the backward per step: {same}, graph built: {graph}")
for steps in [5, 50, 100]:
    _, ops, runs = per_step_backward(steps)
    print(
        f"{steps} steps: backward per step {ops} ops + {runs} node "
        f"runs, forward mode {forward_mode(steps)[1]} ops"
    )
