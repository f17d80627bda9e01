import torch
from torch import nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
bce = nn.BCEWithLogitsLoss()
ones, zeros = torch.ones(4, 1), torch.zeros(4, 1)
real = torch.randn(4, 2) + 3.0
fake = G(torch.randn(4, 2))


def flat(grads):
    return torch.cat([g.flatten() for g in grads])


loss_d = bce(D(real), ones) + bce(D(fake), zeros)
loss_g = bce(D(fake), ones)
# What each network should get: its own loss's gradient only.
keep = {"retain_graph": True}
d_own = flat(torch.autograd.grad(loss_d, D.parameters(), **keep))
g_own = flat(torch.autograd.grad(loss_g, G.parameters(), **keep))

(loss_d + loss_g).backward()  # one backward: no error
for name, net, own in [("D", D, d_own), ("G", G, g_own)]:
    got = flat(p.grad for p in net.parameters())
    leak = got - own  # the other network's loss, pulled in
    cos = nn.functional.cosine_similarity(got, own, dim=0)
    print(
        f"{name}: .grad = its own loss's gradient: "
        f"{torch.allclose(got, own)}\n   the other loss adds "
        f"{leak.norm():.4f} to {own.norm():.4f}, "
        f"cosine(.grad, own) {cos:.4f}"
    )
