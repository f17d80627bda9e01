import torch
from torch import nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
real, fake = torch.randn(16, 2), torch.randn(16, 2)

# WGAN-GP: the penalty is taken on random interpolations.
alpha = torch.rand(16, 1)
mixed = (alpha * real + (1 - alpha) * fake).requires_grad_()
(grad_mixed,) = torch.autograd.grad(critic(mixed).sum(), mixed)
penalty = ((grad_mixed.norm(dim=1) - 1) ** 2).mean()

# Nothing else uses critic(mixed)'s graph, so this backward succeeds.
loss = critic(fake).mean() - critic(real).mean() + 10.0 * penalty
loss.backward()
print(
    f"backward ran; penalty = {penalty.item():.4f}, "
    f"differentiable: {penalty.requires_grad}"
)
