import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 16))
head_a, head_b = nn.Linear(16, 1), nn.Linear(16, 1)
params = [*trunk.parameters(), *head_a.parameters()]
params += head_b.parameters()
w = nn.Parameter(torch.ones(2))  # GradNorm's task weights
opt = torch.optim.SGD([{"params": params}, {"params": [w]}], lr=0.1)
x, y_a, y_b = torch.randn(32, 8), torch.randn(32, 1), torch.randn(32, 1)
shared = trunk[2].weight  # GradNorm's W: the last shared layer
alpha = 1.5

for step in range(4):
    features = trunk(x)
    losses = torch.stack(
        [
            F.mse_loss(head_a(features), y_a),
            F.mse_loss(head_b(features), y_b),
        ]
    )
    if step == 0:
        initial = losses.detach()  # L(0): values, not a graph
    weighted = w * losses
    grads = [  # gradient of w_i L_i for W, differentiable in w
        torch.autograd.grad(
            wl, shared, retain_graph=True, create_graph=True
        )[0]
        for wl in weighted
    ]
    norms = torch.stack([g.norm() for g in grads])  # G_i
    ratio = losses.detach() / initial  # L_i(t) / L_i(0)
    # The paper's target is a constant: detached.
    target = (norms.mean() * (ratio / ratio.mean()) ** alpha).detach()
    gradnorm_loss = (norms - target).abs().sum()
    # L_grad trains w, and only w.
    (w_grad,) = torch.autograd.grad(gradnorm_loss, w, retain_graph=True)
    opt.zero_grad()
    (w.detach() * losses).sum().backward()  # the losses train the model
    w.grad = w_grad
    opt.step()
    with torch.no_grad():
        w *= 2 / w.sum()  # renormalise: the weights sum to 2
    # W.grad holds the weighted losses' gradient, nothing of L_grad.
    weighted_only = torch.allclose(shared.grad, sum(grads), atol=1e-6)
    print(
        f"step {step}: w = {w[0]:.4f}, {w[1]:.4f}, "
        f"|w.grad| {w_grad.norm():.4f}, W.grad right: {weighted_only}"
    )
