import torch
from workloads import MODELS, SavedTensors, loss_of


def saved_by_forward(name):
    torch.manual_seed(0)
    model, x, y = MODELS[name](batch=32)
    with SavedTensors(model) as saved:
        loss = loss_of(model, x, y)
    return saved.held(), loss


def find(node, name):
    """The first node called `name` in the graph that ends at node."""
    todo = [node]
    while todo:
        node = todo.pop()
        if type(node).__name__ == name:
            return node
        todo += [n for n, _ in node.next_functions if n is not None]
    return None


onednn = torch.backends.mkldnn
print(f"torch built with oneDNN: {onednn.is_available()}")
print("bytes saved by the forward pass, batch of 32")
print(f"{'model':5} {'oneDNN on':>11} {'oneDNN off':>11}")
for name in MODELS:
    on, _ = saved_by_forward(name)
    onednn.enabled = False
    try:
        off, _ = saved_by_forward(name)
    finally:  # whatever runs next in this process gets it back
        onednn.enabled = True
    print(f"{name:5} {on:>11,} {off:>11,}")

# With oneDNN, one node runs the whole LSTM. Its fourth output, which
# it saves for its backward, is oneDNN's workspace.
total, loss = saved_by_forward("lstm")
lstm = find(loss.grad_fn, "MkldnnRnnLayerBackward0")
workspace = lstm._saved_result3
print(f"lstm, oneDNN on: {type(lstm).__name__}._saved_result3")
print(
    f"  {workspace.dtype}, {workspace.nbytes:,} bytes:"
    f" {workspace.nbytes / total:.0%} of {total:,}"
)
