import torch


def saved_tensors(output):
    """Every tensor the graph behind `output` saved for backward."""
    found, todo, seen = [], [output.grad_fn], set()
    while todo:
        node = todo.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        for attr in dir(node):
            if attr.startswith("_saved_"):
                value = getattr(node, attr)  # raises once freed
                if isinstance(value, torch.Tensor):
                    found.append((node.name(), attr, value))
        todo.extend(fn for fn, _ in node.next_functions)
    return found


def report(output):
    saved = saved_tensors(output)
    # Saved tensors can share one piece of memory: count it once.
    storages = {
        t.untyped_storage().data_ptr(): t.untyped_storage().nbytes()
        for _, _, t in saved
    }
    size = sum(storages.values())
    return f"{len(saved)} saved tensors, {size} bytes"


if __name__ == "__main__":
    x = torch.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() * x).sum()
    for node, attr, t in sorted(saved_tensors(y)):
        print(f"{node}.{attr}: shape {tuple(t.shape)}")
    print(report(y))
