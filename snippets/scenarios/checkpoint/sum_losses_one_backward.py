import torch
from multitask_net import MultiTaskNet, batch, losses

for use_reentrant in (True, False):
    torch.manual_seed(0)
    model = MultiTaskNet(use_reentrant=use_reentrant)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    # --8<-- [start:fix]
    for step in range(2):
        loss_a, loss_b = losses(model, *batch())
        opt.zero_grad()
        # One backward through the checkpoint: one recomputation.
        (loss_a + loss_b).backward()
        opt.step()
        # --8<-- [end:fix]
    print(
        f"use_reentrant={use_reentrant}: 2 steps, "
        f"trunk ran {model.trunk_runs} times"
    )
