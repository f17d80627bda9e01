"""graph_size.py: measure the autograd graph behind a loss.

saved_bytes(loss): the bytes of the tensors that the graph behind loss
saved for its backward (a storage shared by several counts once). Call
it before optimizer.step(): reading a saved tensor that step() has
changed raises the in-place error.
backward_nodes(loss, ...): runs loss.backward(...) and returns how
many nodes of the graph it ran, its work.
"""

import torch


def graph_nodes(loss):
    seen, todo = [], [loss.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.append(node)
            todo.extend(
                next_node for next_node, _ in node.next_functions
            )
    return seen


def saved_tensors(node):
    names = [name for name in dir(node) if name.startswith("_saved_")]
    found = [getattr(node, name) for name in names]
    return [t for t in found if isinstance(t, torch.Tensor)]


def saved_bytes(loss):
    storages = {}
    for node in graph_nodes(loss):
        for tensor in saved_tensors(node):
            storage = tensor.untyped_storage()
            storages[storage.data_ptr()] = storage.nbytes()
    return sum(storages.values())


def backward_nodes(loss, **backward_options):
    ran = []
    hooks = [
        node.register_prehook(lambda grads, node=node: ran.append(node))
        for node in graph_nodes(loss)
    ]
    loss.backward(**backward_options)
    for hook in hooks:
        hook.remove()
    return len(ran)


if __name__ == "__main__":
    torch.manual_seed(0)
    layer = torch.nn.Linear(16, 32)
    loss = layer(torch.randn(8, 16)).pow(2).mean()
    print(f"{saved_bytes(loss)} bytes saved")
    print(f"backward ran {backward_nodes(loss)} nodes")
