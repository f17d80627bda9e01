import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
w = torch.tensor([3.0, 4.0], requires_grad=True)
loss = (x.exp() * w).sum()


def nodes(root):
    """Every node reachable from root, breadth first."""
    order, todo = [], [root]
    while todo:
        node = todo.pop(0)
        if node not in order:
            order.append(node)
            todo.extend(f for f, _ in node.next_functions)
    return order


def holds(node):
    if hasattr(node, "variable"):  # AccumulateGrad: a leaf's node
        leaf = "x" if node.variable is x else "w"
        return f"saves nothing, adds into {leaf}.grad"
    names = [a for a in dir(node) if a.startswith("_saved_")]
    try:
        saved = [getattr(node, a) for a in names]
    except RuntimeError:  # the error this site is about
        return "saved tensors freed"
    tensors = [v for v in saved if isinstance(v, torch.Tensor)]
    if tensors:
        return f"saves {len(tensors)} tensor(s)"
    return f"saves only the shape {saved[0]}"


def show(when):
    graph = nodes(loss.grad_fn)
    print(f"{when} {len(graph)} nodes")
    for node in graph:
        print(f"  {type(node).__name__}: {holds(node)}")


show("after the forward pass:")
loss.backward()
show("after backward():")
