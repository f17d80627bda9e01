# An energy-based model of 2-D data trained by contrastive divergence:
# negatives from short-run Langevin dynamics restarted from a replay
# buffer (Du & Mordatch 2019), an L2 penalty on the energies, and a
# gradient penalty that makes the data points minima of the energy.
import torch
from torch import nn

torch.manual_seed(0)
E = nn.Sequential(
    nn.Linear(2, 64),
    nn.SiLU(),
    nn.Linear(64, 64),
    nn.SiLU(),
    nn.Linear(64, 1),
)
params = list(E.parameters())
opt = torch.optim.Adam(params, lr=1e-3)
centers = torch.tensor([[1.0, 1.0], [-1.0, 1.0], [1.0, -1.0], [-1, -1]])
data = centers[torch.randint(4, (6, 64))] + 0.1 * torch.randn(6, 64, 2)
buffer = torch.rand(256, 2) * 4 - 2
alpha, lam = 0.1, 1.0


def langevin(x, n=10, eps=0.05):
    # sampling moves x, not the model: no graph through the steps
    for _ in range(n):
        x = x.detach().requires_grad_(True)
        (g,) = torch.autograd.grad(E(x).sum(), x)
        x = x - eps / 2 * g + 0.1 * eps**0.5 * torch.randn_like(x)
    return x.detach()


def cd_loss(e_pos, e_neg):
    reg = (e_pos**2).mean() + (e_neg**2).mean()
    return e_pos.mean() - e_neg.mean() + alpha * reg


def rel(a, b):
    a = torch.cat([t.flatten() for t in a])
    b = torch.cat([t.flatten() for t in b])
    return ((a - b).norm() / b.norm()).item()


for step in range(6):
    idx = torch.randint(256, (64,))
    neg = langevin(buffer[idx])
    buffer[idx] = neg  # the buffer keeps samples of earlier models
    pos = data[step].clone().requires_grad_(True)
    e_pos, e_neg = E(pos), E(neg)
    # the penalty as meant: a function of the weights
    x = data[step].clone().requires_grad_(True)
    (gx,) = torch.autograd.grad(E(x).sum(), x, create_graph=True)
    meant = cd_loss(E(data[step]), E(neg))
    meant = meant + lam * gx.pow(2).sum(1).mean()
    want = torch.autograd.grad(meant, params)
    # the penalty is trained through: unlike Langevin's gradients, this
    # one needs its own graph
    (g_pos,) = torch.autograd.grad(e_pos.sum(), pos, create_graph=True)
    gp = g_pos.pow(2).sum(1).mean()
    loss = cd_loss(e_pos, e_neg) + lam * gp
    opt.zero_grad()
    loss.backward()
    without = torch.autograd.grad(cd_loss(E(pos), E(neg)), params)
    print(
        f"step {step}: penalty {gp.item():.4f}; grad vs the meant "
        f"{rel([p.grad for p in params], want):.3f}, vs no penalty at "
        f"all {rel([p.grad for p in params], without):.3f}"
    )
    opt.step()
