import torch
from multitask_net import MultiTaskNet, batch, losses


def trunk_grad(use_reentrant, separate):
    torch.manual_seed(0)  # the same weights and batch every time
    model = MultiTaskNet(use_reentrant=use_reentrant)
    loss_a, loss_b = losses(model, *batch())
    if separate:
        loss_a.backward(retain_graph=True)  # keep the saved inputs
        loss_b.backward()
    else:
        (loss_a + loss_b).backward()
    return model.trunk[0].weight.grad, model.trunk_runs


for use_reentrant in (True, False):
    one, _ = trunk_grad(use_reentrant, separate=False)
    two, runs = trunk_grad(use_reentrant, separate=True)
    print(
        f"use_reentrant={use_reentrant}: trunk ran {runs} times, "
        f"same gradient as one backward: {torch.allclose(one, two)}"
    )
