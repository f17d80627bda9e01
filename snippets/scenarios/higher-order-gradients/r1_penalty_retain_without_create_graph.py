import torch
from torch import nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
real = torch.randn(16, 2).requires_grad_()


def critic_grads(penalty_weight, create_graph):
    critic.zero_grad()
    out_real = critic(real)
    (grad_real,) = torch.autograd.grad(
        out_real.sum(),
        real,
        retain_graph=True,
        create_graph=create_graph,
    )
    penalty = grad_real.pow(2).sum(dim=1).mean()
    loss = -out_real.mean() + penalty_weight * penalty
    loss.backward()
    return [p.grad.clone() for p in critic.parameters()], penalty


for create_graph in (False, True):
    plain, _ = critic_grads(0.0, create_graph)
    penalized, penalty = critic_grads(5.0, create_graph)
    changed = not all(map(torch.equal, plain, penalized))
    print(
        f"create_graph={create_graph}: "
        f"differentiable: {penalty.requires_grad}, "
        f"changes the gradients: {changed}"
    )
