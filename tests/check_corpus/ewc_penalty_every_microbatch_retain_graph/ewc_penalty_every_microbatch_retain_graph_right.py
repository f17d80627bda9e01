# Elastic weight consolidation (Kirkpatrick et al. 2017): after task A,
# keep its weights and a diagonal Fisher; train task B with gradient
# accumulation and a quadratic penalty that anchors the weights.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 3))
params = list(net.parameters())
opt = torch.optim.SGD(params, lr=0.05)
xa, ya = torch.randn(256, 8), torch.randint(3, (256,))
xb = torch.randn(6, 4, 8, 8)
yb = (xb[..., 0] > 0).long() + (xb[..., 1] > 0).long()
lam, accum = 2000.0, 4

# task A, then its anchor and its empirical Fisher from the gradients
for i in range(30):
    opt.zero_grad()
    F.cross_entropy(net(xa[i % 8 :: 8]), ya[i % 8 :: 8]).backward()
    opt.step()
anchor = [p.detach().clone() for p in params]
fisher = [torch.zeros_like(p) for p in params]
for i in range(8):
    opt.zero_grad()
    F.cross_entropy(net(xa[i::8]), ya[i::8]).backward()
    for f, p in zip(fisher, params):
        f += p.grad**2 / 8


def rel(a, b):
    a = torch.cat([t.flatten() for t in a])
    b = torch.cat([t.flatten() for t in b])
    return ((a - b).norm() / b.norm()).item()


for step in range(6):
    ewc = sum(
        (f * (p - a) ** 2).sum()
        for f, p, a in zip(fisher, params, anchor)
    )
    ewc = lam / 2 * ewc
    # the step's gradient as intended: the whole batch's loss plus
    # the penalty, once
    ce_all = F.cross_entropy(
        net(xb[step].flatten(0, 1)), yb[step].flatten()
    )
    g_ce = torch.autograd.grad(ce_all, params)
    g_ewc = torch.autograd.grad(ewc, params, retain_graph=True)
    want = [c + e for c, e in zip(g_ce, g_ewc)]
    opt.zero_grad()
    # the penalty has no data in it: one backward per step, and the
    # micro-batches' backwards add the task's gradient to it
    ewc.backward()
    for i in range(accum):
        ce = F.cross_entropy(net(xb[step, i]), yb[step, i])
        loss = ce / accum
        loss.backward()
    d = rel([p.grad for p in params], want)
    # how many times the penalty's gradient is in the step's gradient
    extra = torch.cat(
        [(p.grad - c).flatten() for p, c in zip(params, g_ce)]
    )
    g = torch.cat([e.flatten() for e in g_ewc])
    times = f"{(extra @ g / (g @ g)).item():.2f}" if g.norm() else "-"
    print(
        f"step {step}: task B loss {ce_all.item():.4f}, penalty "
        f"{ewc.item():.4f}; grad vs the intended {d:.3f}, penalty "
        f"counted {times} times"
    )
    opt.step()
