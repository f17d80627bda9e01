# Sobolev training (Czarnecki et al. 2017) for distillation: a small
# student matches a frozen teacher's outputs and also its gradients
# with respect to the input.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
teacher = nn.Sequential(nn.Linear(4, 64), nn.Tanh(), nn.Linear(64, 1))
teacher.requires_grad_(False)  # trained before; only a target here
student = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1))
params = list(student.parameters())
opt = torch.optim.Adam(params, lr=1e-2)
xs = torch.randn(8, 64, 4)


def rel(a, b):
    a = torch.cat([t.flatten() for t in a])
    b = torch.cat([t.flatten() for t in b])
    return ((a - b).norm() / b.norm()).item()


def meant(x):
    x = x.clone().requires_grad_(True)
    t_out = teacher(x)
    (t_grad,) = torch.autograd.grad(t_out.sum(), x)
    s_out = student(x)
    (s_grad,) = torch.autograd.grad(s_out.sum(), x, create_graph=True)
    loss = F.mse_loss(s_out, t_out.detach())
    return loss + F.mse_loss(s_grad, t_grad)


for step in range(8):
    want = torch.autograd.grad(meant(xs[step]), params)
    alone = F.mse_loss(student(xs[step]), teacher(xs[step]))
    alone = torch.autograd.grad(alone, params)
    x = xs[step].clone().requires_grad_(True)
    t_out = teacher(x)
    # the teacher's gradients are targets: constants, no graph needed
    (t_grad,) = torch.autograd.grad(t_out.sum(), x)
    s_out = student(x)
    # loss.backward() raised after this call freed the student's
    # graph; the error asked for retain_graph=True
    (s_grad,) = torch.autograd.grad(s_out.sum(), x, retain_graph=True)
    value_loss = F.mse_loss(s_out, t_out.detach())
    grad_loss = F.mse_loss(s_grad, t_grad)
    loss = value_loss + grad_loss
    opt.zero_grad()
    loss.backward()
    print(
        f"step {step}: value loss {value_loss.item():.4f}, gradient "
        f"loss {grad_loss.item():.4f}; grad vs the meant "
        f"{rel([p.grad for p in params], want):.3f}, vs the value "
        f"loss's alone {rel([p.grad for p in params], alone):.3f}"
    )
    opt.step()
