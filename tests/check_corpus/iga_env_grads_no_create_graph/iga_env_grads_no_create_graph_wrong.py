# DomainBed's IGA (inter-environmental gradient alignment): per-env
# gradients from autograd.grad(..., retain_graph=True), without
# create_graph, so the penalty built from them is a constant.
import torch
import torch.nn.functional as F
from torch import autograd, nn

torch.manual_seed(0)
network = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
params = list(network.parameters())
optimizer = torch.optim.Adam(params, lr=1e-3)
penalty_weight = 0.1
envs = [(torch.randn(4, 32, 6) + e, torch.randint(3, (4, 32)))
        for e in range(3)]


def iga_objective(minibatches, create_graph):
    total_loss, grads = 0, []
    for x, y in minibatches:
        env_loss = F.cross_entropy(network(x), y)
        total_loss += env_loss
        grads.append(autograd.grad(env_loss, params, retain_graph=True,
                                   create_graph=create_graph))
    mean_loss = total_loss / len(minibatches)
    mean_grad = autograd.grad(mean_loss, params, retain_graph=True,
                              create_graph=create_graph)
    penalty_value = 0
    for grad in grads:
        for g, mean_g in zip(grad, mean_grad):
            penalty_value += (g - mean_g).pow(2).sum()
    return mean_loss, mean_grad, penalty_value


def rel(a, b):
    a = torch.cat([t.flatten() for t in a])
    b = torch.cat([t.flatten() for t in b])
    return ((a - b).norm() / b.norm()).item()


for step in range(4):
    minibatches = [(x[step], y[step]) for x, y in envs]
    total_loss, grads = 0, []
    for x, y in minibatches:
        env_loss = F.cross_entropy(network(x), y)
        total_loss += env_loss
        grads.append(autograd.grad(env_loss, params,
                                   retain_graph=True))
    mean_loss = total_loss / len(minibatches)
    mean_grad = autograd.grad(mean_loss, params,
                              retain_graph=True)
    penalty_value = 0
    for grad in grads:
        for g, mean_g in zip(grad, mean_grad):
            penalty_value += (g - mean_g).pow(2).sum()

    # what the objective's gradient is, with the penalty differentiated
    m, _, pv = iga_objective(minibatches, create_graph=True)
    want = autograd.grad(m + penalty_weight * pv, params)

    optimizer.zero_grad()
    (mean_loss + penalty_weight * penalty_value).backward()
    used = [p.grad for p in params]
    print(f"step {step}: penalty {penalty_value.item():.4f}; grad vs "
          f"mean_loss's alone {rel(used, mean_grad):.3f}, vs the "
          f"objective's {rel(used, want):.3f} (relative)")
    optimizer.step()
