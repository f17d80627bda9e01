import torch
from torch import nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
real = torch.randn(16, 2).requires_grad_()

for create_graph in (False, True):
    sizes = []

    def pack(t, sizes=sizes):
        sizes.append(t.numel())  # a tensor kept for a later backward
        return t

    out_real = critic(real)
    # Count what the gradient computation itself saves.
    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        torch.autograd.grad(
            out_real.sum(), real, create_graph=create_graph
        )
    print(
        f"create_graph={create_graph}: "
        f"{len(sizes)} tensors, {sum(sizes)} numbers saved"
    )
