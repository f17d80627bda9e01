"""torch-pme, a wrong fix: cache the mesh built from a detached cell.

Source: https://github.com/lab-cosmo/torch-pme/issues/62
The user wanted to compute the PME potential of two configurations in
the same cell with one calculator and backpropagate each one to get
gradients with respect to the positions and the cell.
"""

import torch

torch.manual_seed(0)


class MeshInterpolator:
    """Cloud-in-cell weights (interpolation_order=2) on a ns^3 mesh."""

    def __init__(self, cell, ns_mesh, interpolation_order):
        self.cell = cell
        self.inverse_cell = torch.linalg.inv(cell)
        self.ns_mesh = ns_mesh
        self.interpolation_order = interpolation_order

    def compute_interpolation_weights(self, positions):
        frac = positions @ self.inverse_cell * self.ns_mesh
        base = torch.floor(frac).long()
        offsets = frac - base
        self.corners = []
        for dx in (0, 1):
            for dy in (0, 1):
                for dz in (0, 1):
                    d = torch.tensor([dx, dy, dz])
                    w = torch.where(d == 1, offsets, 1 - offsets)
                    idx = (base + d) % self.ns_mesh
                    self.corners.append((idx, w.prod(dim=1)))

    def points_to_mesh(self, particle_weights):
        n = self.ns_mesh
        mesh = torch.zeros(n * n * n)
        for idx, w in self.corners:
            flat = (idx[:, 0] * n + idx[:, 1]) * n + idx[:, 2]
            mesh = mesh.index_add(0, flat, w * particle_weights[:, 0])
        return mesh.reshape(n, n, n)

    def mesh_to_points(self, mesh_vals):
        out = 0
        for idx, w in self.corners:
            out = out + w * mesh_vals[idx[:, 0], idx[:, 1], idx[:, 2]]
        return out[:, None]


class KSpaceFilter:
    def update_mesh(self, cell, ns, smearing):
        rcell = 2 * torch.pi * torch.linalg.inv(cell).T
        k1d = torch.fft.fftfreq(ns) * ns
        grid = torch.stack(
            torch.meshgrid(k1d, k1d, k1d, indexing="ij"), -1
        )
        kvectors = grid @ rcell
        k2 = (kvectors**2).sum(-1)
        k2[0, 0, 0] = 1.0
        kernel = 4 * torch.pi * torch.exp(-0.5 * smearing**2 * k2) / k2
        self.kernel = kernel * (k2 != 1.0)

    def compute(self, rho_mesh):
        return torch.fft.ifftn(
            torch.fft.fftn(rho_mesh) * self.kernel
        ).real


class PMEPotential:
    def __init__(
        self, atomic_smearing, mesh_spacing, interpolation_order
    ):
        self.atomic_smearing = atomic_smearing
        self.ns = 8  # from mesh_spacing in the library
        self.interpolation_order = interpolation_order
        self._cell_cache = -1 * torch.ones([3, 3])
        self._MI = MeshInterpolator(
            torch.eye(3), self.ns, self.interpolation_order
        )
        self._KF = KSpaceFilter()

    def __call__(self, positions, charges, cell):
        # Kernel and MeshInterpolator only depend on `cell`: cached.
        if not torch.allclose(cell, self._cell_cache):
            self._cell_cache = cell.detach().clone()
            const = (
                cell.detach()
            )  # runs, but dE/dcell loses these terms
            self._MI = MeshInterpolator(
                const,
                self.ns,
                interpolation_order=self.interpolation_order,
            )
            self._KF.update_mesh(const, self.ns, self.atomic_smearing)
        ivolume = torch.abs(cell.det()).pow(-1)
        self._MI.compute_interpolation_weights(positions)
        rho_mesh = self._MI.points_to_mesh(particle_weights=charges)
        potential_mesh = self._KF.compute(rho_mesh)
        return self._MI.mesh_to_points(potential_mesh) * ivolume


sr_cutoff = 5.5
calculator = PMEPotential(
    atomic_smearing=sr_cutoff / 5.0,
    mesh_spacing=None,
    interpolation_order=3,
)


def fresh_cell_grad(positions, charges, cell):
    """dE/dcell with the mesh and kernel built from this cell."""
    cell = cell.detach().requires_grad_()
    MI = MeshInterpolator(cell, 8, interpolation_order=3)
    KF = KSpaceFilter()
    KF.update_mesh(cell, 8, sr_cutoff / 5.0)
    MI.compute_interpolation_weights(positions.detach())
    rho_mesh = MI.points_to_mesh(particle_weights=charges)
    potential = MI.mesh_to_points(KF.compute(rho_mesh))
    (potential * torch.abs(cell.det()).pow(-1)).sum().backward()
    return cell.grad


for config in range(3):
    positions = 5 * torch.rand((100, 3), requires_grad=True)
    cell = 5 * torch.eye(3, requires_grad=True)
    charges = torch.rand((100, 1))
    positions.retain_grad()  # to print dE/dpositions and dE/dcell
    cell.retain_grad()
    output = calculator(positions, charges, cell)
    output = output.sum()
    output.backward()
    fresh = fresh_cell_grad(positions, charges, cell)
    print(
        f"config {config}: potential sum {output.item():.3e}, "
        f"|dE/dpositions| {positions.grad.norm():.3e}, "
        f"|dE/dcell| {cell.grad.norm():.3e}, as built from this cell: "
        f"{torch.allclose(cell.grad, fresh)}"
    )
