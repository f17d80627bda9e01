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
        initial = losses  # L(0), kept with its graph
    weighted = w * losses
    norms = torch.stack(  # G_i: |gradient of w_i L_i for W|
        [
            torch.autograd.grad(
                wl, shared, retain_graph=True, create_graph=True
            )[0].norm()
            for wl in weighted
        ]
    )
    ratio = losses / initial  # L_i(t) / L_i(0)
    target = norms.mean() * (ratio / ratio.mean()) ** alpha
    gradnorm_loss = (norms - target).abs().sum()
    opt.zero_grad()
    weighted.sum().backward(retain_graph=True)
    gradnorm_loss.backward()
    opt.step()
    with torch.no_grad():
        w *= 2 / w.sum()  # renormalise: the weights sum to 2
    print(f"step {step}: w = {w[0]:.4f}, {w[1]:.4f}")
