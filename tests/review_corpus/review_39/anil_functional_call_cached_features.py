import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.func import functional_call

torch.manual_seed(0)

N_WAY, K_SHOT, N_QUERY, DIM = 5, 5, 15, 20
INNER_LR, INNER_STEPS, META_BATCH = 0.5, 3, 4


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(
            nn.Linear(DIM, 64),
            nn.ReLU(),
            nn.Linear(64, 64),
            nn.ReLU(),
        )
        self.head = nn.Linear(64, N_WAY)

    def forward(self, x):
        return self.head(self.body(x))


def sample_task():
    proj = torch.randn(DIM, DIM) / DIM**0.5
    centers = torch.randn(N_WAY, DIM)

    def draw(k):
        labels = torch.arange(N_WAY).repeat_interleave(k)
        x = (centers[labels] + 0.4 * torch.randn(len(labels), DIM)) @ proj
        return x, labels

    return draw(K_SHOT), draw(N_QUERY)


def head_params(params):
    return {k[len("head.") :]: v for k, v in params.items() if k.startswith("head.")}


def adapt(net, params, feats, labels):
    for _ in range(INNER_STEPS):
        logits = functional_call(net.head, head_params(params), (feats,))
        loss = F.cross_entropy(logits, labels)
        grads = torch.autograd.grad(loss, list(params.values()), allow_unused=True)
        params = {
            k: (v - INNER_LR * g) if k.startswith("head.") else v
            for (k, v), g in zip(params.items(), grads)
        }
    return params


net = Net()
meta_opt = torch.optim.Adam(net.parameters(), lr=1e-3)

for it in range(100):
    meta_opt.zero_grad()
    meta_loss = 0.0
    for _ in range(META_BATCH):
        (xs, ys), (xq, yq) = sample_task()
        feats = net.body(torch.cat([xs, xq]))
        feats_s, feats_q = feats[: len(xs)], feats[len(xs) :]

        fast = adapt(net, dict(net.named_parameters()), feats_s, ys)
        logits_q = functional_call(net.head, head_params(fast), (feats_q,))
        meta_loss = meta_loss + F.cross_entropy(logits_q, yq) / META_BATCH

    meta_loss.backward()
    meta_opt.step()
    if it % 20 == 0:
        print(f"iter {it:3d}  meta loss {meta_loss.item():.4f}")
