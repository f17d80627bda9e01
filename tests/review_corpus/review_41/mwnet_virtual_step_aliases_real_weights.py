# source: https://github.com/xjtushujun/meta-weight-net/issues/8
# Meta-Weight-Net reduced to plain torch. Per batch: (1) virtual SGD step of a copy of the
# classifier with per-sample weights from `vnet`, (2) validation loss at the virtual weights
# trains vnet, (3) the real classifier takes an ordinary weighted step. The bug: the "meta
# model" is not a copy -- `meta_params = params` aliases the real weights.
import torch
import torch.nn.functional as F

torch.manual_seed(0)


def clf(x, p):
    return F.linear(torch.relu(F.linear(x, p["w1"], p["b1"])), p["w2"], p["b2"])


params = {
    "w1": torch.randn(16, 4) * 0.3,
    "b1": torch.zeros(16),
    "w2": torch.randn(3, 16) * 0.3,
    "b2": torch.zeros(3),
}
for p in params.values():
    p.requires_grad_()
vnet = torch.nn.Sequential(
    torch.nn.Linear(1, 8), torch.nn.ReLU(), torch.nn.Linear(8, 1), torch.nn.Sigmoid()
)
opt = torch.optim.SGD(params.values(), lr=0.1)
vopt = torch.optim.Adam(vnet.parameters(), lr=1e-3)
Xtr, Ytr = torch.randn(64, 4), torch.randint(0, 3, (64,))
Ytr[:16] = torch.randint(0, 3, (16,))  # noisy labels
Xva, Yva = torch.randn(32, 4), torch.randint(0, 3, (32,))
lr = 0.1

for step in range(3):
    # --- meta step on the virtual model ---
    meta_params = params  # BUG: should be a fresh copy of the current weights
    cost = F.cross_entropy(clf(Xtr, meta_params), Ytr, reduction="none")
    w = vnet(cost.unsqueeze(1)).squeeze(1)
    l_f_meta = (cost * w).sum() / w.sum()
    grads = torch.autograd.grad(l_f_meta, list(meta_params.values()), create_graph=True)
    for (k, v), g in zip(list(meta_params.items()), grads):
        meta_params[k] = v - lr * g  # virtual step
    l_g_meta = F.cross_entropy(clf(Xva, meta_params), Yva)
    vopt.zero_grad()
    l_g_meta.backward()
    vopt.step()
    # --- actual step on the real model ---
    cost = F.cross_entropy(clf(Xtr, params), Ytr, reduction="none")
    with torch.no_grad():
        w = vnet(cost.unsqueeze(1)).squeeze(1)
    loss = (cost * w).sum() / w.sum()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, "val meta loss", l_g_meta.item(), "train loss", loss.item())
