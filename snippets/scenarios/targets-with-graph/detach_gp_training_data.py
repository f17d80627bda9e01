import torch
from gp_fit import neg_log_marginal_likelihood, objective

torch.manual_seed(0)
# Points proposed by a gradient-based acquisition search come out
# of it as leaves that require grad.
x = torch.rand(8, 1, requires_grad=True)
# Training data are data: cut them off the search's graph.
train_x = x.detach()
train_y = objective(x).detach()

log_lengthscale = torch.zeros((), requires_grad=True)
log_noise = torch.tensor(-1.0, requires_grad=True)
opt = torch.optim.Adam([log_lengthscale, log_noise], lr=0.1)
for step in range(3):
    opt.zero_grad()
    loss = neg_log_marginal_likelihood(
        train_x, train_y, log_lengthscale, log_noise
    )
    loss.backward()
    opt.step()
    print(f"step {step}: -log marginal likelihood {loss.item():.4f}")

print(
    f"lengthscale {log_lengthscale.exp().item():.4f}, "
    f"noise {log_noise.exp().item():.4f}, "
    f"x.grad is None: {x.grad is None}"
)
