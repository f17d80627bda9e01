# Source: https://github.com/WeiChengTseng/Pytorch-PCGrad/blob/master/pcgrad.py
# (PCGrad._pack_grad). Multi-task gradient surgery: a shared trunk with two task
# heads; PCGrad needs EACH task's gradient separately, so it backwards every task
# loss in turn (zeroing grads between), then projects conflicting gradients and
# writes the combined gradient back before one optimizer step.
# Reduced here as a user re-implementation that dropped retain_graph=True.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(10, 32), nn.ReLU())
head1, head2 = nn.Linear(32, 1), nn.Linear(32, 1)
params = list(trunk.parameters()) + list(head1.parameters()) + list(head2.parameters())
optim = torch.optim.Adam(params, lr=1e-2)
x = torch.randn(64, 10)
y1, y2 = x[:, :1] * 2, -x[:, :1] + x[:, 1:2]


def pack_grad(objectives):
    grads = []
    for obj in objectives:
        optim.zero_grad(set_to_none=True)
        obj.backward()  # 2nd task: RuntimeError (trunk graph freed)
        grads.append(
            torch.cat(
                [(p.grad if p.grad is not None else torch.zeros_like(p)).flatten() for p in params]
            )
        )
    return grads


def pc_backward(objectives):
    grads = pack_grad(objectives)
    pc = [g.clone() for g in grads]
    for g_i in pc:
        for g_j in grads:
            dot = g_i @ g_j
            if dot < 0:
                g_i -= dot * g_j / (g_j.norm() ** 2)
    merged, i = torch.stack(pc).sum(0), 0
    for p in params:
        p.grad = merged[i : i + p.numel()].view_as(p).clone()
        i += p.numel()


for step in range(3):
    h = trunk(x)
    l1, l2 = F.mse_loss(head1(h), y1), F.mse_loss(head2(h), y2)
    pc_backward([l1, l2])
    optim.step()
    print(step, l1.item(), l2.item())
