import torch
from torch import nn

torch.manual_seed(0)
critic = nn.Linear(2, 1)  # linear: the penalty's gradient is known
real = torch.randn(8, 2).requires_grad_()

out = critic(real)
# The inner gradient, recorded so that it can be differentiated.
(g,) = torch.autograd.grad(out.sum(), real, create_graph=True)
penalty = ((g.norm(dim=1) - 1) ** 2).mean()
(out.mean() + penalty).backward()  # no error: the graph was kept
print(
    f"penalty {penalty.item():.4f}, has a grad_fn: "
    f"{penalty.grad_fn is not None}"
)

# Take the critic's gradient without the penalty, on a new graph.
total = critic.weight.grad.clone()
critic.zero_grad()
critic(real.detach()).mean().backward()
from_penalty = total - critic.weight.grad

# g is the weight itself, so the penalty is (|w| - 1) ** 2, and
# its gradient with respect to w is 2 (|w| - 1) w / |w|.
w = critic.weight.detach()
expected = 2 * (w.norm() - 1) * w / w.norm()
print(
    f"penalty's share of critic.weight.grad: {from_penalty.norm():.4f}"
)
print(
    f"= 2 (|w| - 1) w / |w|: {torch.allclose(from_penalty, expected)}"
)
