# Source: https://github.com/SNAS-Series/SNAS-Series/issues/10
# (SNAS/train_search.py). Architecture search: one forward gives error_loss and
# resource_loss; loss = resource_loss + error_loss trains weights and log_alpha.
# For analysis the script first backwards each loss on its own (zeroing grads in
# between) to LOG its gradient on log_alpha, then backwards the total loss.
# Reduced here without the retain_graph=True on the logging backwards.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
ops = nn.ModuleList([nn.Linear(8, 8), nn.Sequential(nn.Linear(8, 8), nn.ReLU()), nn.Identity()])
head = nn.Linear(8, 3)
log_alpha = nn.Parameter(torch.zeros(len(ops)))
cost = torch.tensor([1.0, 1.2, 0.0])  # resource cost per op
optimizer = torch.optim.SGD(list(ops.parameters()) + list(head.parameters()), lr=0.1)
arch_optimizer = torch.optim.SGD([log_alpha], lr=0.1)
x, target = torch.randn(32, 8), torch.randint(0, 3, (32,))

normal_resource_gradient = normal_loss_gradient = normal_total_gradient = 0
for step in range(3):
    w = F.gumbel_softmax(log_alpha, tau=1.0)
    logits = head(sum(wi * op(x) for wi, op in zip(w, ops)))
    error_loss = F.cross_entropy(logits, target)
    resource_loss = 1e-2 * (w * cost).sum()
    loss = resource_loss.clone() + error_loss.clone()

    # logging gradient
    optimizer.zero_grad()
    arch_optimizer.zero_grad()
    resource_loss.backward()
    normal_resource_gradient += log_alpha.grad
    optimizer.zero_grad()
    arch_optimizer.zero_grad()
    error_loss.backward()  # RuntimeError: shared graph freed
    normal_loss_gradient += log_alpha.grad
    optimizer.zero_grad()
    arch_optimizer.zero_grad()

    loss.backward()
    normal_total_gradient += log_alpha.grad
    optimizer.step()
    arch_optimizer.step()
    print(step, loss.item())
