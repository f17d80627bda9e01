# PGD adversarial training on the word embeddings of a text classifier,
# after ark-nlp's _on_backward: K attack steps on the embedding weight,
# the clean gradient kept aside and restored before the last backward.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
vocab, dim, K = 50, 16, 3
emb = nn.Embedding(vocab, dim)
head = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, 2))
params = [*emb.parameters(), *head.parameters()]
opt = torch.optim.AdamW(params, lr=1e-2)
tokens = torch.randint(vocab, (4, 16, 12))
labels = torch.randint(2, (4, 16))


def model(x):
    return head(emb(x).mean(1))


class PGD:
    def __init__(self, eps=1.0, alpha=0.3):
        self.eps, self.alpha, self.backup = eps, alpha, None

    def attack(self, is_first_attack):
        w = emb.weight
        if is_first_attack:
            self.backup = w.data.clone()
        norm = w.grad.norm()
        if norm != 0:
            w.data.add_(self.alpha * w.grad / norm)
            r = w.data - self.backup
            if r.norm() > self.eps:
                w.data = self.backup + self.eps * r / r.norm()

    def restore(self):
        emb.weight.data = self.backup

    def backup_grad(self):
        self.grad_backup = [p.grad.clone() for p in params]

    def restore_grad(self):
        for p, g in zip(params, self.grad_backup):
            p.grad = g


def rel(a, b):
    a = torch.cat([t.flatten() for t in a])
    b = torch.cat([t.flatten() for t in b])
    return ((a - b).norm() / b.norm()).item()


pgd = PGD()
for step in range(4):
    x, y = tokens[step], labels[step]
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    pgd.backup_grad()
    clean = [g.clone() for g in pgd.grad_backup]
    for t in range(K):
        pgd.attack(is_first_attack=(t == 0))
        if t != K - 1:
            opt.zero_grad()
        else:
            pgd.restore_grad()
        # a fresh forward at the perturbed embeddings each attack step
        adv_logits = model(x)
        loss_adv = F.cross_entropy(adv_logits, y)
        loss_adv.backward()
    # what the step should hold: the clean gradient plus the gradient
    # of the loss at the perturbed embeddings
    adv = torch.autograd.grad(F.cross_entropy(model(x), y), params)
    want = [c + a for c, a in zip(clean, adv)]
    twice = [2 * c for c in clean]
    print(
        f"step {step}: loss {loss.item():.4f}; grad vs clean + "
        f"adversarial {rel([p.grad for p in params], want):.3f}, vs "
        f"2 x clean {rel([p.grad for p in params], twice):.3f}"
    )
    pgd.restore()
    opt.step()
