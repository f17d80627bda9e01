import torch
from multitask_net import MultiTaskNet, batch, losses


def loss_b_grad(step_between, refresh=False, **checkpoint_kwargs):
    """Trunk weight gradient of loss_b, in a step-per-task loop."""
    torch.manual_seed(0)  # the same weights and batch every time
    model = MultiTaskNet(**checkpoint_kwargs)
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    data = batch()
    loss_a, loss_b = losses(model, *data)
    loss_a.backward(retain_graph=True)  # the "fix"
    if step_between:
        opt.step()  # task A's update: the trunk changes in place
    opt.zero_grad()
    if refresh:  # a fresh forward pass at the updated weights
        _, loss_b = losses(model, *data)
    loss_b.backward()
    return model.trunk[0].weight.grad


at_forward = loss_b_grad(step_between=False)
at_updated = loss_b_grad(step_between=True, refresh=True)
try:
    loss_b_grad(step_between=True)
except RuntimeError as error:
    print(f"no checkpoint: {str(error).split(':')[0]}")
for use_reentrant in (True, False):
    grad = loss_b_grad(step_between=True, use_reentrant=use_reentrant)
    print(
        f"use_reentrant={use_reentrant}: runs; gradient right for "
        f"the forward's weights: {torch.allclose(grad, at_forward)}, "
        f"for the updated ones: {torch.allclose(grad, at_updated)}"
    )
