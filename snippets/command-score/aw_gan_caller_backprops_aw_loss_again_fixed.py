"""Adaptive weighted discriminator (aw-method): aw_loss() has already
set D's gradients, so the caller only steps D's optimizer.

Source: https://github.com/vasily789/adaptive-weighted-gans/issues/6
The user wanted to train a conditional DCGAN's discriminator with the
aw-method's weighted loss, then the generator as usual.
"""

import copy

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
Z, LABELS, IMG, BATCH = 4, 3, 8, 6


class AwMethod:
    """aw_loss.py (normalized version), with pull request 1's copies."""

    def __init__(self, alpha1=0.5, alpha2=0.75, delta=0.05, eps=0.05):
        self.a1, self.a2, self.delta, self.eps = (
            alpha1,
            alpha2,
            delta,
            eps,
        )

    def aw_loss(self, d_real, d_fake, d_opt, d_net, real_v, fake_v):
        d_opt.zero_grad()
        d_real.backward(retain_graph=True)
        g_real = [copy.deepcopy(p.grad) for p in d_net.parameters()]
        r_vec = torch.cat([g.reshape(-1) for g in g_real])
        rdotr = torch.dot(r_vec, r_vec).item() + 1e-4
        r_norm = np.sqrt(rdotr)
        d_opt.zero_grad()
        d_fake.backward()
        g_fake = [copy.deepcopy(p.grad) for p in d_net.parameters()]
        f_vec = torch.cat([g.reshape(-1) for g in g_fake])
        fdotf = torch.dot(f_vec, f_vec).item() + 1e-4
        f_norm = np.sqrt(fdotf)
        rdotf = torch.dot(r_vec, f_vec).item()
        rs = torch.mean(torch.sigmoid(real_v))
        fs = torch.mean(torch.sigmoid(fake_v))
        if rs < self.a1 or rs < (fs - self.delta):
            w_r = 1 / r_norm + self.eps
            w_f = self.eps
            if rdotf <= 0:
                w_f += -rdotf / (fdotf * r_norm)
        elif rs > self.a2 and rs > (fs - self.delta):
            w_r = self.eps
            w_f = 1 / f_norm + self.eps
            if rdotf <= 0:
                w_r += -rdotf / (rdotr * f_norm)
        else:
            w_r = 1 / r_norm + self.eps
            w_f = 1 / f_norm + self.eps
        aw_loss = w_r * d_real + w_f * d_fake
        for i, p in enumerate(d_net.parameters()):
            p.grad = w_r * g_real[i] + w_f * g_fake[i]
        return aw_loss


class Cond(nn.Module):
    def __init__(self, n_in, n_out):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(n_in + LABELS, 16),
            nn.ReLU(),
            nn.Linear(16, n_out),
        )

    def forward(self, x, onehot):
        return self.net(torch.cat([x, onehot], -1))


G, D = Cond(Z, IMG), Cond(IMG, 1)
G_opt = torch.optim.Adam(G.parameters(), lr=2e-4)
D_opt = torch.optim.Adam(D.parameters(), lr=2e-4)
criterion = nn.BCEWithLogitsLoss()
aw = AwMethod()

for step in range(2):
    x_real = torch.randn(BATCH, IMG)
    onehot = F.one_hot(torch.randint(LABELS, (BATCH,)), LABELS).float()
    # (1) Update D network
    real_validity = D(x_real, onehot).squeeze()
    Dloss_real = criterion(real_validity, torch.ones(BATCH))
    noise = torch.randn(BATCH, Z)
    x_fake = G(noise, onehot)
    fake_validity = D(x_fake, onehot).squeeze()
    Dloss_fake = criterion(fake_validity, torch.zeros(BATCH))
    aw_loss = aw.aw_loss(
        Dloss_real, Dloss_fake, D_opt, D, real_validity, fake_validity
    )
    # aw_loss() backpropagated both terms and set D's .grad to their
    # weighted sum: no backward here, only the step
    d_grad = D.net[0].weight.grad.norm().item()
    before = D.net[0].weight.detach().clone()
    D_opt.step()
    d_moved = not torch.equal(before, D.net[0].weight)
    # (2) Update G network: maximize log(D(G(z)))
    G_opt.zero_grad()
    x_fake = G(torch.randn(BATCH, Z), onehot)
    G_loss = criterion(D(x_fake, onehot).squeeze(), torch.ones(BATCH))
    G_loss.backward()
    G_opt.step()
    print(
        f"step {step}: aw loss {aw_loss.item():.3f}, D grad norm "
        f"{d_grad:.4f}, D stepped: {d_moved}, G grad norm "
        f"{G.net[0].weight.grad.norm():.4f}"
    )
