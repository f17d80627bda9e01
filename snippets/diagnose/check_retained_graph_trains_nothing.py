"""A student distilled from a teacher whose outputs were computed once,
with their graph, before the loop; retain_graph=True silenced the
error. Nothing trains the teacher, yet every step runs its graph again
and adds to its .grad."""

import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
teacher, student = nn.Linear(8, 4), nn.Linear(8, 4)
opt = torch.optim.SGD(student.parameters(), lr=0.1)
x = torch.randn(32, 8)
soft_targets = F.softmax(teacher(x), dim=1)  # made once, with a graph
for step in range(3):
    opt.zero_grad()
    log_p = F.log_softmax(student(x), dim=1)
    loss = F.kl_div(log_p, soft_targets, reduction="batchmean")
    loss.backward(retain_graph=True)  # the error message's advice
    opt.step()
    print(
        f"step {step}: |teacher.weight.grad| "
        f"{teacher.weight.grad.norm():.4f}"
    )
