# source: written blind
# Hamiltonian neural network for a mass-spring system. The author intended:
# the network outputs a scalar energy H(q, p); the predicted vector field is
# (dH/dp, -dH/dq), fitted to observed time derivatives, and, because energy
# labels are available for this data, H itself is also regressed onto the
# measured energy (small weight). Both terms should train the MLP.
import torch
import torch.nn as nn
import torch.nn.functional as F


class HNN(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(),
                                 nn.Linear(hidden, hidden), nn.Tanh(),
                                 nn.Linear(hidden, 1))

    def forward(self, x):
        return self.net(x)

    def time_derivative(self, x):
        H = self.forward(x)
        dH = torch.autograd.grad(H.sum(), x, create_graph=True)[0]
        dq_dt, dp_dt = dH[:, 1:2], -dH[:, 0:1]
        return torch.cat([dq_dt, dp_dt], dim=1), H


def spring_dataset(gen, n=256, noise=0.05):
    q = torch.rand(n, 1, generator=gen) * 4 - 2
    p = torch.rand(n, 1, generator=gen) * 4 - 2
    x = torch.cat([q, p], 1)
    dxdt = torch.cat([p, -q], 1) + noise * torch.randn(n, 2, generator=gen)
    energy = 0.5 * (q ** 2 + p ** 2).squeeze(1)
    return x, dxdt, energy


def batches(x, dxdt, energy, bsz, gen):
    perm = torch.randperm(x.size(0), generator=gen)
    for i in range(0, x.size(0), bsz):
        j = perm[i:i + bsz]
        yield x[j], dxdt[j], energy[j]


def main():
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    x, dxdt, energy = spring_dataset(gen)
    model = HNN()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    energy_weight = 0.1
    for epoch in range(5):
        total = 0.0
        for xb, db, eb in batches(x, dxdt, energy, 64, gen):
            xb = xb.clone().requires_grad_(True)
            field, H = model.time_derivative(xb)
            loss = F.mse_loss(field, db) + energy_weight * F.mse_loss(H.squeeze(1), eb)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch} loss {total / 4:.4f}")


if __name__ == "__main__":
    main()
