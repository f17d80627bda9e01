import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)


def sample_task(k_shot=10, k_query=15):
    amp = torch.empty(1).uniform_(0.1, 5.0)
    phase = torch.empty(1).uniform_(0, math.pi)
    x = torch.empty(k_shot + k_query, 1).uniform_(-5.0, 5.0)
    y = amp * torch.sin(x + phase)
    return x[:k_shot], y[:k_shot], x[k_shot:], y[k_shot:]


def init_params(hidden=40):
    w1 = (torch.randn(hidden, 1) * 0.5).requires_grad_()
    b1 = torch.zeros(hidden, requires_grad=True)
    w2 = (torch.randn(hidden, hidden) / math.sqrt(hidden)).requires_grad_()
    b2 = torch.zeros(hidden, requires_grad=True)
    w3 = (torch.randn(1, hidden) / math.sqrt(hidden)).requires_grad_()
    b3 = torch.zeros(1, requires_grad=True)
    return [w1, b1, w2, b2, w3, b3]


def encode(x, p):
    h = F.relu(F.linear(x, p[0], p[1]))
    return F.relu(F.linear(h, p[2], p[3]))


def head(h, p):
    return F.linear(h, p[4], p[5])


params = init_params()
meta_opt = torch.optim.Adam(params, lr=1e-3)
inner_lr = 0.01
meta_batch = 4

for it in range(200):
    meta_opt.zero_grad()
    meta_loss = 0.0
    for _ in range(meta_batch):
        xs, ys, xq, yq = sample_task()
        support_loss = F.mse_loss(head(encode(xs, params), params), ys)
        grads = torch.autograd.grad(support_loss, params)
        fast = [p - inner_lr * g for p, g in zip(params, grads)]
        query_loss = F.mse_loss(head(encode(xq, fast), fast), yq)
        meta_loss = meta_loss + query_loss / meta_batch
    meta_loss.backward()
    meta_opt.step()
    if it % 50 == 0:
        print(it, meta_loss.item())
