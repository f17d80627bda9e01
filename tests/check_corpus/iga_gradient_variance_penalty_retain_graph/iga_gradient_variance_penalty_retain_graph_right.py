# https://github.com/facebookresearch/DomainBed/issues/50
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch import autograd

torch.manual_seed(0)


def make_env(n, spurious_sign):
    y = torch.randint(0, 2, (n,))
    core = y.float()[:, None] + 0.8 * torch.randn(n, 2)
    spur = spurious_sign * (2 * y.float()[:, None] - 1) + 0.3 * torch.randn(n, 2)
    return torch.cat([core, spur], 1), y


class IGA:
    def __init__(self, penalty=10.0):
        self.network = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
        self.optimizer = torch.optim.Adam(self.network.parameters(), lr=1e-2)
        self.hparams = {"penalty": penalty}

    def update(self, minibatches):
        total_loss = 0
        grads = []
        for x, y in minibatches:
            env_loss = F.cross_entropy(self.network(x), y)
            total_loss += env_loss
            grads.append(autograd.grad(env_loss, self.network.parameters(), create_graph=True))
        mean_loss = total_loss / len(minibatches)
        mean_grad = autograd.grad(mean_loss, self.network.parameters(), create_graph=True)
        penalty_value = 0
        for grad in grads:
            for g, mean_g in zip(grad, mean_grad):
                penalty_value += (g - mean_g).pow(2).sum()
        self.optimizer.zero_grad()
        (mean_loss + self.hparams["penalty"] * penalty_value).backward()
        used = torch.cat([p.grad.flatten() for p in self.network.parameters()])
        loss_only = torch.cat([g.detach().flatten() for g in mean_grad])
        self.optimizer.step()
        return mean_loss.item(), penalty_value.item(), (used - loss_only).norm().item()


algorithm = IGA()
envs = [make_env(64, s) for s in (1.0, 0.8, -1.0)]
for step in range(12):
    loss, pen, pen_grad = algorithm.update(envs)
    print(f"step {step}: mean loss {loss:.4f}, penalty {pen:.4f}, "
          f"|penalty's contribution to the gradient used| {pen_grad:.6f}")
