# A hypernetwork for multi-task regression: a frozen, pretrained text
# encoder embeds each task's description, and the hypernetwork turns
# that embedding into the weights of the task's linear model.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
n_tasks, d_in = 3, 6
text_enc = nn.Sequential(nn.Linear(12, 16), nn.Tanh())
text_enc.requires_grad_(False)  # pretrained; not trained here
hyper = nn.Sequential(
    nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, d_in + 1)
)
opt = torch.optim.AdamW(hyper.parameters(), lr=1e-2, fused=True)
descr = torch.randn(n_tasks, 12)
true_w = torch.randn(n_tasks, d_in)
x = torch.randn(2, 4, 32, d_in)
task = torch.arange(2 * 4).view(2, 4) % n_tasks


def rel(a, b):
    a = torch.cat([t.flatten() for t in a])
    b = torch.cat([t.flatten() for t in b])
    return ((a - b).norm() / b.norm()).item()


with torch.no_grad():
    feats = text_enc(descr)  # the descriptions do not change

for epoch in range(2):
    for b in range(4):
        # the weights come from the hypernetwork as it is now; only
        # the frozen encoder's output is computed once
        gen = hyper(feats)
        k = int(task[epoch, b])
        xb = x[epoch, b]
        yb = xb @ true_w[k]
        pred = xb @ gen[k, :d_in] + gen[k, d_in]
        loss = F.mse_loss(pred, yb)
        fresh = hyper(feats)[k]
        want = torch.autograd.grad(
            F.mse_loss(xb @ fresh[:d_in] + fresh[d_in], yb),
            list(hyper.parameters()),
        )
        opt.zero_grad()
        loss.backward()
        d_w = rel([gen[k].detach()], [fresh.detach()])
        d_g = rel([p.grad for p in hyper.parameters()], want)
        print(
            f"epoch {epoch} batch {b} (task {k}): loss "
            f"{loss.item():.4f}; weights used vs hyper now {d_w:.3f}; "
            f"grad vs a fresh forward's {d_g:.3f}"
        )
        opt.step()
