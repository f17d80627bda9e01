import torch

x = torch.tensor(3.0, requires_grad=True)
ops = {
    "x + 1": lambda: x + 1,
    "-x": lambda: -x,
    "x.sum()": lambda: x.sum(),
    "x * 2": lambda: x * 2,
    "x / 2": lambda: x / 2,
}


def saved_tensors(node):
    """The tensors a node saved, read through its _saved_* getters."""
    names = [a for a in dir(node) if a.startswith("_saved_")]
    found = {a: getattr(node, a) for a in names}
    return {
        a: v for a, v in found.items() if isinstance(v, torch.Tensor)
    }


for text, op in ops.items():
    y = op()
    saved = saved_tensors(y.grad_fn)
    held = ", ".join(f"{a} = {v!r}" for a, v in saved.items())
    y.backward()
    try:
        y.backward()
        second = "second backward runs"
    except RuntimeError:  # the error this site is about
        second = "second backward raises"
    node = type(y.grad_fn).__name__
    print(f"{text:7} {node:12} {held or 'no tensor saved':26} {second}")
