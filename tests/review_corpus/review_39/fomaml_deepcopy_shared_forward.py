import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

N_WAY, K_SHOT, N_QUERY, DIM = 5, 5, 10, 32
INNER_LR = 0.1
META_BATCH = 4


def sample_task():
    centers = torch.randn(N_WAY, DIM) * 1.5

    def draw(k):
        labels = torch.arange(N_WAY).repeat_interleave(k)
        x = centers[labels] + 0.7 * torch.randn(len(labels), DIM)
        return x, labels

    return draw(K_SHOT), draw(N_QUERY)


model = nn.Sequential(
    nn.Linear(DIM, 64),
    nn.ReLU(),
    nn.Linear(64, 64),
    nn.ReLU(),
    nn.Linear(64, N_WAY),
)
meta_opt = torch.optim.Adam(model.parameters(), lr=1e-3)

for it in range(100):
    meta_opt.zero_grad()
    query_acc = 0.0
    for _ in range(META_BATCH):
        (xs, ys), (xq, yq) = sample_task()
        learner = copy.deepcopy(model)

        out = learner(torch.cat([xs, xq]))
        logits_s, logits_q = out[: len(xs)], out[len(xs) :]

        support_loss = F.cross_entropy(logits_s, ys)
        grads = torch.autograd.grad(support_loss, list(learner.parameters()))
        with torch.no_grad():
            for p, g in zip(learner.parameters(), grads):
                p.sub_(INNER_LR * g)

        query_loss = F.cross_entropy(logits_q, yq) / META_BATCH
        query_loss.backward()
        for p, lp in zip(model.parameters(), learner.parameters()):
            p.grad = lp.grad.clone() if p.grad is None else p.grad + lp.grad
        query_acc += (logits_q.argmax(1) == yq).float().mean().item() / META_BATCH

    meta_opt.step()
    if it % 20 == 0:
        print(f"iter {it:3d}  query acc {query_acc:.3f}")
