import torch
from torch import nn


def count_nodes(t):
    """Graph nodes behind t. Equal at the steps whose graphs have one
    shape (same input length, same route), or a leak."""
    seen, todo = set(), [t.grad_fn]
    while todo:
        node = todo.pop()
        if node is not None and node not in seen:
            seen.add(node)
            todo.extend(f for f, _ in node.next_functions)
    return len(seen)


# An RNN over sequences of different lengths, its hidden state
# carried from batch to batch: the graph's size follows the length.
torch.manual_seed(0)
cell, head = nn.RNNCell(3, 4), nn.Linear(4, 1)
lengths = [3, 5, 3, 4, 5, 3]
batches = [torch.randn(n, 2, 3) for n in lengths]


def run(variant):
    h, by_length = torch.zeros(2, 4), {}
    counts = []
    for seq in batches:
        if variant == "fixed":
            h = h.detach()  # truncated BPTT: cut at each batch
        for x_t in seq:
            h = cell(x_t, h)
        loss = head(h).pow(2).mean()
        loss.backward(retain_graph=variant == "leaking")
        counts.append(count_nodes(loss))
        by_length.setdefault(len(seq), []).append(counts[-1])
    print(f"{variant}: nodes per step {counts}")
    for n, c in sorted(by_length.items()):
        print(f"  length {n}: {c}")
    flat = all(len(set(c)) == 1 for c in by_length.values())
    print(f"  one count per length: {flat}")


for variant in ["fixed", "leaking"]:
    run(variant)
