import torch
from gp_fit import neg_log_marginal_likelihood, objective

torch.manual_seed(0)
# Points proposed by a gradient-based acquisition search come out
# of it as leaves that require grad.
x = torch.rand(8, 1, requires_grad=True)
train_y = objective(x)
# Counts the backward passes that go on into the objective.
into_objective = []
train_y.register_hook(lambda grad: into_objective.append(1))

log_lengthscale = torch.zeros((), requires_grad=True)
log_noise = torch.tensor(-1.0, requires_grad=True)
opt = torch.optim.Adam([log_lengthscale, log_noise], lr=0.1)
for step in range(3):
    opt.zero_grad()
    loss = neg_log_marginal_likelihood(
        x, train_y, log_lengthscale, log_noise
    )
    loss.backward(retain_graph=True)  # the "fix"
    opt.step()
    print(
        f"step {step}: backward ran through the objective "
        f"{len(into_objective)}x, |x.grad| = {x.grad.norm():.3f}"
    )
