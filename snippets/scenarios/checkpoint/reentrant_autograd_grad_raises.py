import torch
from multitask_net import MultiTaskNet, batch, losses

for use_reentrant in (False, True):
    torch.manual_seed(0)
    model = MultiTaskNet(use_reentrant=use_reentrant)
    loss_a, loss_b = losses(model, *batch())
    # Per-task gradients as return values (GradNorm, PCGrad, logging).
    grads = torch.autograd.grad(loss_a, list(model.stem.parameters()))
    print(f"use_reentrant={use_reentrant}: got {len(grads)} gradients")
