import torch
from multitask_net import MultiTaskNet, batch, losses


def trunk_grad(use_reentrant, backward):
    torch.manual_seed(0)  # the same weights and batch every time
    model = MultiTaskNet(use_reentrant=use_reentrant)
    loss_a, _ = losses(model, *batch())
    backward(loss_a)
    return model.trunk[0].weight.grad, model.trunk_runs


def once(loss):
    loss.backward()


def twice(loss):
    loss.backward(retain_graph=True)
    loss.backward()


def sum_once(loss):
    (loss + loss).backward()  # both passes' gradients, one backward


for use_reentrant in (True, False):
    one, runs_one = trunk_grad(use_reentrant, once)
    two, runs_two = trunk_grad(use_reentrant, twice)
    summed, runs_sum = trunk_grad(use_reentrant, sum_once)
    print(
        f"use_reentrant={use_reentrant}: trunk ran {runs_one}, "
        f"{runs_two}, {runs_sum} times; twice = 2 x once: "
        f"{torch.allclose(two, 2 * one)}; sum once = twice: "
        f"{torch.allclose(summed, two)}"
    )
