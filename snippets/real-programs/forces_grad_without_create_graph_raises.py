# https://github.com/learningmatter-mit/Atomistic-Adversarial-Attacks/issues/1
# The repository's attack (Attacker.attack_epoch, AdvLoss) on an
# ensemble of the user's own potentials, reduced to plain torch.
import torch
from torch import nn


class Potential(nn.Module):
    """Energy from positions; forces as the negative energy gradient."""

    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 1)
        )

    def forward(self, xyz):
        energy = self.net(xyz).sum()
        (grad,) = torch.autograd.grad(energy, xyz)
        return {"energy": energy, "energy_grad": -grad}


def adv_loss(e, f, e_train, temperature=1.0):
    # -(force variance over the ensemble) * Boltzmann probability
    partition = torch.exp(-e_train / temperature).mean()
    probability = torch.exp(-e.mean(-1) / temperature) / partition
    return -f.var(-1).mean() * probability


torch.manual_seed(0)
ensemble = [Potential() for _ in range(3)]
initial = torch.randn(4, 3)  # 4 atoms
e_train = torch.randn(10)  # energies of the training set
delta = (0.01 * torch.randn(4, 3)).requires_grad_()
opt = torch.optim.Adam([delta], lr=1e-2)

for epoch in range(3):
    opt.zero_grad()
    xyz = initial + delta
    results = [m(xyz) for m in ensemble]
    forces = torch.stack([r["energy_grad"] for r in results], dim=-1)
    energy = torch.stack([r["energy"] for r in results], dim=-1)
    loss = adv_loss(energy / len(initial), forces, e_train)
    print(f"epoch {epoch}: loss {loss.item():.4f}")
    loss.backward()
    opt.step()
