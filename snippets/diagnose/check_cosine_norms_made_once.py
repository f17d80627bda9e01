# A cosine classifier whose class-weight norms are computed once and
# detached (the second step's backward raised through them): the
# weights still train through the numerator, but every step divides
# them by the first step's norms.
import torch
from torch import nn

torch.manual_seed(0)
weight = nn.Parameter(torch.randn(3, 4))
opt = torch.optim.SGD([weight], lr=0.5)
norms = weight.norm(dim=1, keepdim=True).detach()
x, y = torch.randn(16, 4), torch.randint(0, 3, (16,))
for step in range(3):
    logits = 5 * nn.functional.normalize(x) @ (weight / norms).T
    loss = nn.functional.cross_entropy(logits, y)
    opt.zero_grad()
    loss.backward()
    now = torch.allclose(norms, weight.norm(dim=1, keepdim=True))
    print(
        f"step {step}: weight.grad is None: {weight.grad is None}, "
        f"norms = the weights' norms now: {now}"
    )
    opt.step()
