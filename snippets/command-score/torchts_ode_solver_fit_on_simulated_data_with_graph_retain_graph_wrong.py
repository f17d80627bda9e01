"""torchTS's ODESolver, the merged workaround: loss.backward(
retain_graph=True), as the module's backward override does it.

Source: https://github.com/Rose-STL-Lab/torchTS/pull/134. The
program of the raising script, with that one change. It runs, and the
trained coefficients get their gradients; but the simulation's graph
stays alive, each backward walks it again, and the gradients it
writes go into the simulating solver, which nothing trains.
"""

import torch
from torch import nn
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(0)


class ODESolver(nn.Module):
    def __init__(self, ode, init_vars, init_coeffs, dt, outvar=None):
        super().__init__()
        for name, value in init_coeffs.items():
            self.register_parameter(
                name, nn.Parameter(torch.tensor(value))
            )
        self.ode = ode
        self.var_names = ode.keys()
        self.init_vars = {
            name: torch.tensor(value)
            for name, value in init_vars.items()
        }
        self.coeffs = {
            name: param for name, param in self.named_parameters()
        }
        self.outvar = self.var_names if outvar is None else outvar
        self.dt = dt
        self.criterion = nn.functional.mse_loss

    def _runge_kutta_4_step(self, prev_val):
        pred = {
            name: value.unsqueeze(0)
            for name, value in self.init_vars.items()
        }
        k_1 = prev_val
        k_2, k_3, k_4 = {}, {}, {}
        for var in self.var_names:
            k_2[var] = (
                prev_val[var]
                + self.ode[var](k_1, self.coeffs) * 0.5 * self.dt
            )
        for var in self.var_names:
            k_3[var] = (
                prev_val[var]
                + self.ode[var](k_2, self.coeffs) * 0.5 * self.dt
            )
        for var in self.var_names:
            k_4[var] = (
                prev_val[var]
                + self.ode[var](k_3, self.coeffs) * self.dt
            )
        for var in self.var_names:
            result = self.ode[var](k_1, self.coeffs) / 6
            result += self.ode[var](k_2, self.coeffs) / 3
            result += self.ode[var](k_3, self.coeffs) / 3
            result += self.ode[var](k_4, self.coeffs) / 6
            pred[var] = prev_val[var] + result * self.dt
        return pred

    def solver(self, nt, initial=None):
        if initial is None:
            initial = self.init_vars
        pred = {
            name: value.unsqueeze(0) for name, value in initial.items()
        }
        for n in range(nt - 1):
            prev_val = {var: pred[var][[n]] for var in self.var_names}
            new_val = self._runge_kutta_4_step(prev_val)
            for var in self.var_names:
                pred[var] = torch.cat([pred[var], new_val[var]])
        return torch.stack([pred[var] for var in self.outvar], dim=1)

    def forward(self, nt):
        return self.solver(nt)

    def _step(self, batch):
        x, y = batch
        # one Runge-Kutta step from each data point, against the next
        self.zero_grad()
        init_point = {var: x[:, i] for i, var in enumerate(self.outvar)}
        pred = self._runge_kutta_4_step(init_point)
        predictions = torch.stack([pred[var] for var in self.outvar], 1)
        return self.criterion(predictions, y)


def generate_ode_dataset(x):
    n = x.shape[0]
    return x[: n - 1], x[1:]


# Lorenz 63 equations, as in the notebook
def x_prime(prev_val, coeffs):
    return coeffs["sigma"] * (prev_val["y"] - prev_val["x"])


def y_prime(prev_val, coeffs):
    return (
        prev_val["x"] * (coeffs["rho"] - prev_val["z"]) - prev_val["y"]
    )


def z_prime(prev_val, coeffs):
    return (
        prev_val["x"] * prev_val["y"] - coeffs["beta"] * prev_val["z"]
    )


ode = {"x": x_prime, "y": y_prime, "z": z_prime}
ode_init = {"x": 1, "y": 0, "z": 0}
ode_coeffs = {"sigma": 10.0, "rho": 28.0, "beta": 2.7}

# the data: a trajectory simulated with the true coefficients, which
# are nn.Parameters of this solver, so the trajectory has a graph
ode_solver = ODESolver(ode, ode_init, ode_coeffs, dt=0.01)
result = ode_solver(200)

ode_train_coeffs = {
    "sigma": 20 * torch.rand(()).item(),
    "rho": 20 * torch.rand(()).item(),
    "beta": 20 * torch.rand(()).item(),
}
ode_solver_train = ODESolver(ode, ode_init, ode_train_coeffs, dt=0.01)
optimizer = torch.optim.Adam(ode_solver_train.parameters(), lr=0.5)

result_x, result_y = generate_ode_dataset(result)
loader = DataLoader(TensorDataset(result_x, result_y), batch_size=64)
for i, batch in enumerate(loader):
    if i == 3:
        break
    optimizer.zero_grad()
    loss = ode_solver_train._step(batch)
    loss.backward(retain_graph=True)  # the merged override
    optimizer.step()
    sigma = ode_solver.coeffs["sigma"].grad
    print(
        f"batch {i}: loss {loss.item():.4f}, simulating solver's "
        f"sigma.grad {sigma.item():.4g}"
    )
