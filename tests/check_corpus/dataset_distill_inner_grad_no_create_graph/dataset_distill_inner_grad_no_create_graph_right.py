# Dataset distillation (Wang et al. 2018): learn a few synthetic
# examples, and the inner step size, such that one gradient step on
# them from a random init fits the real data.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
D, C, N = 10, 3, 300
centers = torch.randn(C, D) * 2
y_real = torch.randint(C, (N,))
x_real = centers[y_real] + torch.randn(N, D)
x_syn = torch.nn.Parameter(torch.randn(C, D))
y_syn = torch.arange(C)
log_lr = torch.nn.Parameter(torch.tensor(-2.0))
opt = torch.optim.Adam([x_syn, log_lr], lr=0.05)
x_syn_start = x_syn.detach().clone()


def model(w, b, x):
    return x @ w + b


for step in range(6):
    # a fresh random init each step, a leaf no optimizer holds: only
    # the synthetic data and the step size are learned
    w0 = (torch.randn(D, C) * 0.1).requires_grad_()
    b0 = torch.zeros(C, requires_grad=True)
    inner = F.cross_entropy(model(w0, b0, x_syn), y_syn)
    # the step w1 = w0 - lr * g must stay differentiable in x_syn:
    # x_syn reaches the outer loss only through g
    gw, gb = torch.autograd.grad(inner, (w0, b0), create_graph=True)
    lr = log_lr.exp()
    w1, b1 = w0 - lr * gw, b0 - lr * gb
    outer = F.cross_entropy(model(w1, b1, x_real), y_real)
    opt.zero_grad()
    outer.backward()
    g = "None" if x_syn.grad is None else f"{x_syn.grad.norm():.4f}"
    print(
        f"step {step}: outer loss {outer.item():.4f}, x_syn grad {g}"
        f", log_lr grad {log_lr.grad.item():.4f}"
    )
    opt.step()
print(f"x_syn moved by {(x_syn.detach() - x_syn_start).norm():.4f}")
