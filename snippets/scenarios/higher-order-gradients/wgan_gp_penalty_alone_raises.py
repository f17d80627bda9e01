import torch
from torch import nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))
real, fake = torch.randn(16, 2), torch.randn(16, 2)

alpha = torch.rand(16, 1)
mixed = (alpha * real + (1 - alpha) * fake).requires_grad_()
(grad_mixed,) = torch.autograd.grad(critic(mixed).sum(), mixed)
penalty = ((grad_mixed.norm(dim=1) - 1) ** 2).mean()
print(
    f"penalty = {penalty.item():.4f}, "
    f"differentiable: {penalty.requires_grad}"
)

# The Wasserstein terms are backpropagated on their own first...
(critic(fake).mean() - critic(real).mean()).backward()
# ...and the penalty on its own has no graph to backpropagate.
(10.0 * penalty).backward()
