# source: written blind
#
# What it does: multi-task regression with a shared trunk and two task heads, trained
# with PCGrad gradient surgery (Yu et al. 2020). For every batch the author computes
# each task's gradient on the shared trunk separately (one backward per task, reading
# the trunk's .grad after each), projects each task gradient off the other when the two
# conflict (negative dot product), writes the sum of the projected gradients back into
# the trunk's .grad, and steps one optimizer. The heads keep their own task's gradient.
# What the author intended: two backward passes over the same forward graph, with the
# trunk gradient read and cleared in between, so that the per-task trunk gradients can
# be compared and projected (both task gradients must come from the same forward pass,
# i.e. the same dropout mask). The first task's backward frees the shared graph and the
# second task's backward raises.
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)

IN_DIM, BATCH, STEPS = 10, 64, 5


class MultiTaskNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(
            nn.Linear(IN_DIM, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 64), nn.ReLU()
        )
        self.heads = nn.ModuleList([nn.Linear(64, 1), nn.Linear(64, 1)])

    def forward(self, x):
        h = self.trunk(x)
        return [head(h).squeeze(-1) for head in self.heads]


def make_batch():
    x = torch.randn(BATCH, IN_DIM)
    y1 = x[:, :5].sum(1)
    y2 = -x[:, 3:8].sum(1) + 0.1 * torch.randn(BATCH)  # partly conflicting with task 1
    return x, [y1, y2]


def flat(grads):
    return torch.cat([g.reshape(-1) for g in grads])


def unflat(vec, like):
    out, i = [], 0
    for p in like:
        out.append(vec[i : i + p.numel()].view_as(p))
        i += p.numel()
    return out


def pcgrad_backward(losses, shared_params):
    """Per-task backward on the shared params, project conflicting gradients, write back."""
    task_grads = []
    for loss in losses:
        loss.backward()
        task_grads.append(flat([p.grad.clone() for p in shared_params]))
        for p in shared_params:
            p.grad = None
    projected = []
    order = list(range(len(task_grads)))
    for i, g in enumerate(task_grads):
        g = g.clone()
        random.shuffle(order)
        for j in order:
            if j == i:
                continue
            dot = torch.dot(g, task_grads[j])
            if dot < 0:
                g -= dot / task_grads[j].pow(2).sum() * task_grads[j]
        projected.append(g)
    merged = torch.stack(projected).sum(0)
    for p, g in zip(shared_params, unflat(merged, shared_params)):
        p.grad = g


model = MultiTaskNet()
shared = list(model.trunk.parameters())
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for step in range(STEPS):
    x, ys = make_batch()
    preds = model(x)
    losses = [F.mse_loss(p, y) for p, y in zip(preds, ys)]
    optimizer.zero_grad()
    pcgrad_backward(losses, shared)
    optimizer.step()
    print(f"step {step}: task losses = {[round(t.item(), 4) for t in losses]}")
