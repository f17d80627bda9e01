# A neural network potential trained to energies and forces, as in
# TorchANI's force-training example: forces = -dE/dcoordinates from
# torch.autograd.grad. Without retain_graph the loss's backward raised
# the backward-twice error; retain_graph=True, as the error says, made
# it run, but without create_graph=True the force loss adds nothing to
# the parameters' gradients. https://github.com/aiqm/torchani/pull/238
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
pair_net = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 16),
                         nn.Tanh(), nn.Linear(16, 1))
params = list(pair_net.parameters())
optimizer = torch.optim.Adam(params, lr=1e-2)
force_coefficient = 100.0
i, j = torch.triu_indices(5, 5, 1)


def energy(coordinates, net):
    r = (coordinates[:, i] - coordinates[:, j]).norm(dim=-1)
    return net(r.unsqueeze(-1)).squeeze(-1).sum(-1)


def morse(r):
    return (1 - torch.exp(-1.5 * (r - 1.2))) ** 2 - 1


lattice = torch.tensor([[0.0, 0, 0], [1.2, 0, 0], [0, 1.2, 0],
                        [0, 0, 1.2], [1.2, 1.2, 0]])
coords = lattice + 0.15 * torch.randn(10, 16, 5, 3)
reference = coords.clone().requires_grad_(True)
ref_e = torch.stack([energy(c, morse) for c in reference])
ref_f = -torch.autograd.grad(ref_e.sum(), reference)[0]
ref_e = ref_e.detach() - ref_e.mean().item()  # self energies off


def objective(coordinates, true_energies, true_forces):
    coordinates = coordinates.clone().requires_grad_(True)
    energies = energy(coordinates, pair_net)
    forces = -torch.autograd.grad(energies.sum(), coordinates,
                                  create_graph=True)[0]
    return (F.mse_loss(energies, true_energies)
            + force_coefficient * F.mse_loss(forces, true_forces))


def rel(a, b):
    a = torch.cat([t.flatten() for t in a])
    b = torch.cat([t.flatten() for t in b])
    return ((a - b).norm() / b.norm()).item()


for step in range(10):
    coordinates = coords[step].clone().requires_grad_(True)
    true_energies, true_forces = ref_e[step], ref_f[step]
    energies = energy(coordinates, pair_net)
    forces = -torch.autograd.grad(energies.sum(), coordinates,
                                  retain_graph=True)[0]
    energy_loss = F.mse_loss(energies, true_energies)
    force_loss = F.mse_loss(forces, true_forces)
    loss = energy_loss + force_coefficient * force_loss

    want = torch.autograd.grad(
        objective(coords[step], true_energies, true_forces), params)
    optimizer.zero_grad()
    loss.backward()
    used = [p.grad for p in params]
    print(f"step {step}: energy loss {energy_loss.item():.4f}, force "
          f"loss {force_loss.item():.4f}; grad vs the objective's "
          f"{rel(used, want):.3f} (relative)")
    optimizer.step()

all_coords = coords.flatten(0, 1).requires_grad_(True)
all_forces = -torch.autograd.grad(energy(all_coords, pair_net).sum(),
                                  all_coords)[0]
rmse = (all_forces - ref_f.flatten(0, 1)).pow(2).mean().sqrt()
print(f"force RMSE on all 160 configurations after training "
      f"{rmse.item():.4f}")
