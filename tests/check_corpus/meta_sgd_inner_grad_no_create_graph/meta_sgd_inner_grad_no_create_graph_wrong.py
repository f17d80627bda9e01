# Second-order Meta-SGD on sine regression: MAML's meta-learned init
# plus a meta-learned per-weight inner step size (Li et al. 2017).
import torch
import torch.nn.functional as F

torch.manual_seed(0)
shapes = [(1, 40), (40,), (40, 1), (1,)]
theta = [torch.nn.Parameter(torch.randn(s) * 0.3) for s in shapes]
alpha = [torch.nn.Parameter(torch.full(s, 0.05)) for s in shapes]
meta_opt = torch.optim.Adam(theta + alpha, lr=1e-3)


def net(w, x):
    return torch.tanh(x @ w[0] + w[1]) @ w[2] + w[3]


def task_batch(n_tasks=4, k=10):
    amp = torch.rand(n_tasks, 1, 1) * 4 + 1
    phase = torch.rand(n_tasks, 1, 1) * 3
    x = torch.rand(n_tasks, 2 * k, 1) * 10 - 5
    y = amp * torch.sin(x + phase)
    return x[:, :k], y[:, :k], x[:, k:], y[:, k:]


def meta_loss(xs, ys, xq, yq, create_graph):
    total = 0
    for i in range(len(xs)):
        inner = F.mse_loss(net(theta, xs[i]), ys[i])
        grads = torch.autograd.grad(
            inner, theta, create_graph=create_graph
        )
        fast = [p - a * g for p, a, g in zip(theta, alpha, grads)]
        total = total + F.mse_loss(net(fast, xq[i]), yq[i])
    return total / len(xs)


def rel(a, b):
    a = torch.cat([t.flatten() for t in a])
    b = torch.cat([t.flatten() for t in b])
    return ((a - b).norm() / b.norm()).item()


for step in range(5):
    xs, ys, xq, yq = task_batch()
    want = torch.autograd.grad(
        meta_loss(xs, ys, xq, yq, True), theta + alpha
    )
    loss = 0
    for i in range(len(xs)):
        inner = F.mse_loss(net(theta, xs[i]), ys[i])
        # autograd.grad with its defaults, as the thread's meta.py
        # calls it for the inner step
        grads = torch.autograd.grad(inner, theta)
        fast = [p - a * g for p, a, g in zip(theta, alpha, grads)]
        loss = loss + F.mse_loss(net(fast, xq[i]), yq[i])
    loss = loss / len(xs)
    meta_opt.zero_grad()
    loss.backward()
    d_theta = rel([p.grad for p in theta], want[:4])
    d_alpha = rel([a.grad for a in alpha], want[4:])
    print(
        f"step {step}: meta-loss {loss.item():.3f}; meta-grad vs "
        f"second-order: theta {d_theta:.3f}, alpha {d_alpha:.3f}"
    )
    meta_opt.step()
