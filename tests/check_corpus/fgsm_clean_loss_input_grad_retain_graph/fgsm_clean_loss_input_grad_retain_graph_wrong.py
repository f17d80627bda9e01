# FGSM adversarial training (Goodfellow et al. 2015): the objective is
# alpha * J(x) + (1 - alpha) * J(x + eps * sign(grad_x J(x))). The
# clean loss is backpropagated first to read x.grad for the attack.
import copy

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
N, DIM, NCLS, EPS, ALPHA = 32, 20, 3, 0.1, 0.5
model = nn.Sequential(nn.Linear(DIM, 32), nn.ReLU(), nn.Linear(32, NCLS))
params = list(model.parameters())
optimizer = torch.optim.SGD(params, lr=0.05, momentum=0.9)
xs = torch.randn(5, N, DIM)
ys = (xs[..., :NCLS] * 2).argmax(-1)


def flat(ts):
    return torch.cat([t.reshape(-1) for t in ts])


for step in range(5):
    x = xs[step].clone().requires_grad_(True)
    y = ys[step]
    ref = copy.deepcopy(model)  # for the measurement below
    optimizer.zero_grad()
    loss_clean = F.cross_entropy(model(x), y)
    # loss.backward() below asked to backward through the graph a
    # second time; the error's advice: retain_graph=True here
    loss_clean.backward(retain_graph=True)
    x_adv = (x + EPS * x.grad.sign()).detach()
    loss_adv = F.cross_entropy(model(x_adv), y)
    loss = ALPHA * loss_clean + (1 - ALPHA) * loss_adv
    loss.backward()
    # measured on a copy of this step's weights, fresh forwards
    rp = list(ref.parameters())
    g_clean = flat(torch.autograd.grad(F.cross_entropy(ref(x.detach()), y), rp))
    g_adv = flat(torch.autograd.grad(F.cross_entropy(ref(x_adv), y), rp))
    got = flat([p.grad for p in params])
    want = ALPHA * g_clean + (1 - ALPHA) * g_adv
    counted = (1 + ALPHA) * g_clean + (1 - ALPHA) * g_adv
    print(f"step {step}: grad is the objective's: "
          f"{torch.allclose(got, want, atol=1e-6)}; is (1 + alpha) x clean "
          f"+ (1 - alpha) x adversarial: {torch.allclose(got, counted, atol=1e-6)}")
    optimizer.step()
