import torch
from torch import nn


def saved_bytes(node):
    """Bytes of the tensors saved in the graph behind node."""
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
    return sum(storages.values())


torch.manual_seed(0)
lstm = nn.LSTM(input_size=3, hidden_size=4, batch_first=True)
head = nn.Linear(4, 1)

inputs = torch.randn(2, 15, 3)
targets = torch.randn(2, 15, 1)
hidden = (torch.zeros(1, 2, 4), torch.zeros(1, 2, 4))
reached = []  # batches whose output state a backward went through

for i, start in enumerate(range(0, 15, 5)):
    x = inputs[:, start : start + 5]
    y = targets[:, start : start + 5]
    if i > 0:
        # Fires whenever a backward passes through batch i-1's state.
        hidden[0].register_hook(lambda g, j=i - 1: reached.append(j))
    out, hidden = lstm(x, hidden)
    loss = nn.functional.mse_loss(head(out), y)
    reached.clear()
    loss.backward(retain_graph=True)  # no optimizer.step() at all
    kib = saved_bytes(loss.grad_fn) // 1024
    print(
        f"batch {i}: graph holds {kib} KiB saved, backward also went "
        f"through batches {reached}"
    )
