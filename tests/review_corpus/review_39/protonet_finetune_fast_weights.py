import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

N_WAY, K_SHOT, N_QUERY, DIM, EMB = 5, 5, 10, 24, 16
INNER_LR, INNER_STEPS, META_BATCH = 0.05, 2, 4


def init_params():
    w1 = nn.Parameter(torch.randn(64, DIM) * (2.0 / DIM) ** 0.5)
    b1 = nn.Parameter(torch.zeros(64))
    w2 = nn.Parameter(torch.randn(EMB, 64) * (1.0 / 64) ** 0.5)
    b2 = nn.Parameter(torch.zeros(EMB))
    return [w1, b1, w2, b2]


def embed(x, params):
    w1, b1, w2, b2 = params
    h = F.relu(F.linear(x, w1, b1))
    return F.linear(h, w2, b2)


def sample_task():
    centers = torch.randn(N_WAY, DIM)

    def draw(k):
        labels = torch.arange(N_WAY).repeat_interleave(k)
        return centers[labels] + 0.8 * torch.randn(len(labels), DIM), labels

    return draw(K_SHOT), draw(N_QUERY)


def proto_logits(z, protos):
    return -(torch.cdist(z, protos) ** 2)


params = init_params()
meta_opt = torch.optim.Adam(params, lr=1e-3)

for it in range(100):
    meta_opt.zero_grad()
    meta_loss = 0.0
    for _ in range(META_BATCH):
        (xs, ys), (xq, yq) = sample_task()
        fast = list(params)
        for _ in range(INNER_STEPS):
            z_s = embed(xs, fast)
            protos = z_s.view(N_WAY, K_SHOT, -1).mean(1)
            loss = F.cross_entropy(proto_logits(z_s, protos), ys)
            grads = torch.autograd.grad(loss, fast)
            fast = [p - INNER_LR * g for p, g in zip(fast, grads)]

        logits_q = proto_logits(embed(xq, fast), protos)
        meta_loss = meta_loss + F.cross_entropy(logits_q, yq) / META_BATCH

    meta_loss.backward()
    meta_opt.step()
    if it % 20 == 0:
        print(f"iter {it:3d}  meta loss {meta_loss.item():.4f}")
