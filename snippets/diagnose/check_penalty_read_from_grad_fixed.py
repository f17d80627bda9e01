import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
w = model[0].weight

for step in range(2):
    x = torch.randn(16, 4, requires_grad=True)
    y = torch.randn(16, 1)
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    (gx,) = torch.autograd.grad(loss, x, create_graph=True)
    penalty = gx.pow(2).sum()
    (loss + 0.1 * penalty).backward()
    # The gradient of the loss alone, from a new forward.
    alone = nn.functional.mse_loss(model(x), y)
    (alone,) = torch.autograd.grad(alone, w)
    share = (w.grad - alone).norm()
    print(
        f"step {step}: penalty has a graph: {penalty.requires_grad}, "
        f"its share of w.grad: {share:.4f}"
    )
    opt.step()
