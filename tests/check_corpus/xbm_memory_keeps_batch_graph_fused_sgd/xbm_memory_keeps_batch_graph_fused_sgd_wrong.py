# Cross-batch memory (XBM, Wang et al. 2020) for metric learning: the
# embeddings of recent batches wait in a queue and join the current
# batch as extra positives and negatives of a contrastive loss.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
enc = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 8))
opt = torch.optim.SGD(
    enc.parameters(), lr=0.05, momentum=0.9, fused=True
)
mem_size, margin, warmup = 48, 0.4, 1
x = torch.randn(7, 16, 10)
y = torch.randint(4, (7, 16))
mem_emb, mem_lab = torch.zeros(0, 8), torch.zeros(0, dtype=torch.long)
mem_x = torch.zeros(0, 10)


def contrastive(e, lab, ref, ref_lab, same=False):
    sim = e @ ref.T
    pos = (lab[:, None] == ref_lab[None]).float()
    if same:
        pos = pos - torch.eye(len(e))
    neg = (lab[:, None] != ref_lab[None]).float()
    loss_pos = ((1 - sim) * pos).sum() / pos.sum().clamp(min=1)
    loss_neg = (F.relu(sim - margin) * neg).sum() / neg.sum()
    return loss_pos + loss_neg


def n_nodes(t):
    seen, todo = set(), [t.grad_fn]
    while todo:
        f = todo.pop()
        if f is not None and f not in seen:
            seen.add(f)
            todo.extend(g for g, _ in f.next_functions)
    return len(seen)


def rel(a, b):
    a = torch.cat([t.flatten() for t in a])
    b = torch.cat([t.flatten() for t in b])
    return ((a - b).norm() / b.norm()).item()


for step in range(7):
    e = F.normalize(enc(x[step]), dim=1)
    loss = contrastive(e, y[step], e, y[step], same=True)
    if step > warmup:
        loss = loss + contrastive(e, y[step], mem_emb, mem_lab)
    # the loss as XBM means it: the memory's entries are constants
    const = contrastive(e, y[step], e, y[step], same=True)
    if step > warmup:
        const = const + contrastive(
            e, y[step], mem_emb.detach(), mem_lab
        )
    want = torch.autograd.grad(
        const, list(enc.parameters()), retain_graph=True
    )
    opt.zero_grad()
    # once the memory joined the loss, the next backward reached last
    # step's batch; the error asked for retain_graph=True
    loss.backward(retain_graph=True)
    d = rel([p.grad for p in enc.parameters()], want)
    with torch.no_grad():
        now = F.normalize(enc(mem_x), dim=1)
        drift = (mem_emb - now).norm(dim=1).mean() if len(now) else 0
    print(
        f"step {step}: loss {loss.item():.4f}; nodes reachable "
        f"{n_nodes(loss)}; grad vs constant memory's {d:.3f}; "
        f"memory drift {drift:.3f}"
    )
    opt.step()
    mem_emb = torch.cat([e, mem_emb])[:mem_size]
    mem_lab = torch.cat([y[step], mem_lab])[:mem_size]
    mem_x = torch.cat([x[step], mem_x])[:mem_size]
