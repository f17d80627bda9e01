# source: https://github.com/tristandeleu/pytorch-meta/issues/89
# First-order MAML (torchmeta gradient_update_parameters(first_order=True) rewritten in plain torch).
# The meta-parameters `params` should train; inner-step gradients are first-order constants.
import torch
import torch.nn.functional as F

torch.manual_seed(0)


def net(x, p):
    return F.linear(torch.tanh(F.linear(x, p[0], p[1])), p[2], p[3])


params = [torch.randn(32, 1) * 0.5, torch.zeros(32), torch.randn(1, 32) * 0.1, torch.zeros(1)]
params = [p.requires_grad_() for p in params]
meta_opt = torch.optim.Adam(params, lr=1e-3)
inner_lr, inner_steps, tasks_per_batch = 0.01, 2, 4


def sample_task():
    amp, phase = torch.rand(1) * 4 + 1, torch.rand(1) * 3
    xs, xq = torch.rand(10, 1) * 10 - 5, torch.rand(10, 1) * 10 - 5
    return xs, amp * torch.sin(xs + phase), xq, amp * torch.sin(xq + phase)


for it in range(3):
    meta_opt.zero_grad()
    for t in range(tasks_per_batch):
        xs, ys, xq, yq = sample_task()
        fast = params
        for _ in range(inner_steps):
            inner_loss = F.mse_loss(net(xs, fast), ys)
            grads = torch.autograd.grad(inner_loss, fast)  # first order
            fast = [p - inner_lr * g for p, g in zip(fast, grads)]
        outer_loss = F.mse_loss(net(xq, fast), yq)
        # first-order meta-gradient = gradient of the query loss at the adapted weights
        meta_grads = torch.autograd.grad(outer_loss, fast)
        for p, g in zip(params, meta_grads):
            p.grad = g / tasks_per_batch if p.grad is None else p.grad + g / tasks_per_batch
        (outer_loss / tasks_per_batch).backward()  # leftover from the second-order version
    meta_opt.step()
    print("iter", it, "query loss", outer_loss.item())
