# Triplet training with offline hard-negative mining, once per epoch as
# in FaceNet's triplet selection: each anchor's hardest negative in the
# training set is found with the encoder as the epoch starts.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
enc = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 8))
params = list(enc.parameters())
opt = torch.optim.SGD(params, lr=0.05, momentum=0.9)
means = torch.randn(4, 8)
y = torch.arange(64) % 4
X = means[y] + 0.8 * torch.randn(64, 8)
pos_idx = (torch.arange(64) + 4) % 64  # another sample of the class


def embed(x):
    return F.normalize(enc(x), dim=1)


def rel(a, b):
    a = torch.cat([t.flatten() for t in a])
    b = torch.cat([t.flatten() for t in b])
    return ((a - b).norm() / b.norm()).item()


for epoch in range(3):
    # mining: the embeddings of the whole set, computed once; the 2nd
    # batch asked to backward a second time, and the answer was to
    # detach them
    emb_all = embed(X).detach()
    dist = torch.cdist(emb_all, emb_all)
    dist[y[:, None] == y[None]] = float("inf")
    hard_neg = dist.argmin(1)
    for b in range(4):
        idx = torch.arange(b * 16, b * 16 + 16)
        a, p = embed(X[idx]), embed(X[pos_idx[idx]])
        n = emb_all[hard_neg[idx]]
        loss = F.triplet_margin_loss(a, p, n, margin=0.5)
        fresh = embed(X[hard_neg[idx]])
        want = torch.autograd.grad(
            F.triplet_margin_loss(a, p, fresh, margin=0.5),
            params,
            retain_graph=True,
        )
        opt.zero_grad()
        loss.backward()
        print(
            f"epoch {epoch} batch {b}: loss {loss.item():.4f}; "
            f"negatives vs their embeddings now "
            f"{rel([n], [fresh.detach()]):.3f}; grad vs fresh "
            f"negatives' {rel([q.grad for q in params], want):.3f}"
        )
        opt.step()
