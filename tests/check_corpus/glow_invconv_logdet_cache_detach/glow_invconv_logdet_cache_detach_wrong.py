# source: written blind
# Small Glow-style flow (invertible linear "1x1 conv" + affine couplings) fit by
# maximum likelihood to correlated 4-D data. The author intended: the
# invertible mixing layer contributes log|det W| to the log-likelihood on every
# forward pass, so W is trained by both the base log-prob and the log-det term.
# slogdet was memoised on the module to avoid recomputing it for every call of
# log_prob() during evaluation.
import math

import torch
import torch.nn as nn


class InvertibleLinear(nn.Module):
    def __init__(self, dim):
        super().__init__()
        w, _ = torch.linalg.qr(torch.randn(dim, dim))
        self.weight = nn.Parameter(w)
        self._logdet = None

    def logdet(self):
        if self._logdet is None:
            self._logdet = torch.slogdet(self.weight)[1].detach()
        return self._logdet

    def forward(self, x):
        return x @ self.weight.t(), self.logdet().expand(x.size(0))


class AffineCoupling(nn.Module):
    def __init__(self, dim, hidden=32, flip=False):
        super().__init__()
        self.flip = flip
        half = dim // 2
        self.net = nn.Sequential(nn.Linear(half, hidden), nn.ReLU(), nn.Linear(hidden, 2 * half))
        nn.init.zeros_(self.net[-1].weight)
        nn.init.zeros_(self.net[-1].bias)

    def forward(self, x):
        a, b = x.chunk(2, dim=1)
        if self.flip:
            a, b = b, a
        log_s, t = self.net(a).chunk(2, dim=1)
        log_s = torch.tanh(log_s)
        b = b * log_s.exp() + t
        out = torch.cat([b, a] if self.flip else [a, b], dim=1)
        return out, log_s.sum(1)


class Flow(nn.Module):
    def __init__(self, dim=4, n_blocks=2):
        super().__init__()
        layers = []
        for i in range(n_blocks):
            layers += [InvertibleLinear(dim), AffineCoupling(dim, flip=bool(i % 2))]
        self.layers = nn.ModuleList(layers)

    def log_prob(self, x):
        total_logdet = torch.zeros(x.size(0))
        for layer in self.layers:
            x, ld = layer(x)
            total_logdet = total_logdet + ld
        base = -0.5 * (x ** 2).sum(1) - 0.5 * x.size(1) * math.log(2 * math.pi)
        return base + total_logdet


def make_data(n, gen):
    z = torch.randn(n, 4, generator=gen)
    mix = torch.tensor([[2.0, 0.0, 0.0, 0.0], [1.5, 0.5, 0.0, 0.0],
                        [0.0, 0.0, 0.3, 0.0], [0.0, 0.0, 1.0, 0.2]])
    return z @ mix.t() + torch.tensor([1.0, -1.0, 0.5, 0.0])


def main():
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    data = make_data(1024, gen)
    flow = Flow()
    opt = torch.optim.Adam(flow.parameters(), lr=5e-3)
    for epoch in range(4):
        perm = torch.randperm(data.size(0), generator=gen)
        total = 0.0
        for i in range(0, data.size(0), 256):
            xb = data[perm[i:i + 256]]
            nll = -flow.log_prob(xb).mean()
            opt.zero_grad()
            nll.backward()
            opt.step()
            total += nll.item()
        print(f"epoch {epoch} train nll {total / 4:.4f}")


if __name__ == "__main__":
    main()
