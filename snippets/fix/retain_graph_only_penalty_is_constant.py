import torch
from torch import nn

torch.manual_seed(0)
critic = nn.Linear(2, 1)
real = torch.randn(8, 2).requires_grad_()

# The critic's gradient without any penalty, for comparison.
critic(real.detach()).mean().backward()
no_penalty = critic.weight.grad.clone()

for flag in ["retain_graph", "create_graph"]:
    critic.zero_grad()
    out = critic(real)
    (g,) = torch.autograd.grad(out.sum(), real, **{flag: True})
    penalty = ((g.norm(dim=1) - 1) ** 2).mean()
    (out.mean() + penalty).backward()  # both run without error
    share = critic.weight.grad - no_penalty
    print(
        f"{flag}=True: penalty {penalty.item():.4f}, requires_grad "
        f"{penalty.requires_grad}\n    its share of the gradient "
        f"{share.norm():.4f}, .grad as without it: "
        f"{torch.equal(critic.weight.grad, no_penalty)}"
    )
