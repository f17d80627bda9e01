import torch
from graph_size import backward_nodes, graph_nodes, saved_tensors
from torch import nn

torch.manual_seed(0)
cell, head = nn.RNNCell(16, 32), nn.Linear(32, 1)
params = [*cell.parameters(), *head.parameters()]
w_hh = cell.weight_hh.untyped_storage().data_ptr()
h = torch.zeros(8, 32)

for step in range(41):
    x, y = torch.randn(8, 16), torch.randn(8, 1)
    for p in params:
        p.grad = None
    # This step's own gradient, with the carried state as data.
    own_loss = nn.functional.mse_loss(head(cell(x, h.detach())), y)
    own = torch.autograd.grad(own_loss, params)
    h = cell(x, h)
    loss = nn.functional.mse_loss(head(h), y)
    ran = backward_nodes(loss, retain_graph=True)
    if step % 20 == 0:
        # Steps whose graph saved weight_hh itself, not a copy.
        shares = sum(
            t.untyped_storage().data_ptr() == w_hh
            for node in graph_nodes(loss)
            for t in saved_tensors(node)
        )
        fresh = all(map(torch.allclose, [p.grad for p in params], own))
        print(
            f"step {step}: ran {ran} nodes, weight_hh version "
            f"{cell.weight_hh._version}, saved in {shares} steps; "
            f".grad = own: {fresh}"
        )
    for p in params:  # SGD through .data: no version bump
        p.data.add_(p.grad, alpha=-0.01)
