import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 16))
head_a, head_b = nn.Linear(16, 1), nn.Linear(16, 1)
params = [*trunk.parameters(), *head_a.parameters()]
params += head_b.parameters()
# fused: the step leaves the weights' version counters as they were
opt = torch.optim.SGD(params, lr=0.1, fused=True)
w_in = trunk[0].weight  # the gradient the script checks
x, y_a, y_b = torch.randn(32, 8), torch.randn(32, 1), torch.randn(32, 1)

history = []  # each step's task losses, for the loss ratios
T = 2.0  # dynamic weight averaging's temperature

for step in range(4):
    features = trunk(x)
    losses = torch.stack(
        [
            F.mse_loss(head_a(features), y_a),
            F.mse_loss(head_b(features), y_b),
        ]
    )
    if len(history) >= 2:  # w_i = 2 softmax(L_i(t-1) / L_i(t-2) / T)
        weights = 2 * torch.softmax(history[-1] / history[-2] / T, 0)
    else:
        weights = torch.ones(2)
    history.append(losses)  # kept with its graph
    # What DWA means: the weights as constants, this step's graph only.
    meant = (weights.detach() * losses).sum()
    want = torch.autograd.grad(meant, w_in, retain_graph=True)
    opt.zero_grad()
    (weights * losses).sum().backward(retain_graph=True)  # wrong fix
    opt.step()
    right = torch.allclose(w_in.grad, want[0])
    print(
        f"step {step}: w = {weights[0]:.4f}, {weights[1]:.4f}; "
        f"trunk gradient right: {right}"
    )
