import torch
from torch import nn


def graph_size(node):
    """Nodes reachable from node, and the bytes of what they saved."""
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
    return len(seen), sum(storages.values())


torch.manual_seed(0)
encoder = nn.Linear(8, 4)
opt = torch.optim.SGD(encoder.parameters(), lr=0.1)
# The memory bank: keys of earlier batches, used as negatives.
queue = nn.functional.normalize(torch.randn(16, 4), dim=1)
ptr = 0

for step in range(6):
    x = torch.randn(4, 8)
    q = nn.functional.normalize(encoder(x + 0.1 * torch.randn(4, 8)))
    k = nn.functional.normalize(encoder(x + 0.1 * torch.randn(4, 8)))
    l_pos = (q * k).sum(dim=1, keepdim=True)
    l_neg = q @ queue.T
    logits = torch.cat([l_pos, l_neg], dim=1) / 0.1
    labels = torch.zeros(4, dtype=torch.long)  # the positive: column 0
    loss = nn.functional.cross_entropy(logits, labels)
    # The right gradient: the bank's entries as constants.
    logits_c = torch.cat([l_pos, q @ queue.detach().T], dim=1) / 0.1
    loss_c = nn.functional.cross_entropy(logits_c, labels)
    w = encoder.weight
    (right,) = torch.autograd.grad(loss_c, w, retain_graph=True)
    opt.zero_grad()
    loss.backward(retain_graph=True)  # the "fix"
    opt.step()
    nodes, held = graph_size(loss.grad_fn)
    print(
        f"step {step}: {nodes:3d} nodes, {held:5d} bytes saved, "
        f"gradient right: {torch.allclose(w.grad, right)}"
    )
    # Enqueue this batch's keys over the oldest ones.
    queue[ptr : ptr + 4] = k
    ptr = (ptr + 4) % 16
