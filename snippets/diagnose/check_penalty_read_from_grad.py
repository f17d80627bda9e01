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
    loss.backward(retain_graph=True)  # "fixed" the error
    penalty = x.grad.pow(2).sum()  # the input-gradient penalty
    (loss + 0.1 * penalty).backward()
    # The gradient of twice the loss, from a new forward: no penalty.
    again = 2 * nn.functional.mse_loss(model(x), y)
    (twice,) = torch.autograd.grad(again, w)
    print(
        f"step {step}: penalty has a graph: {penalty.requires_grad}, "
        f"w.grad = twice the loss's: {torch.allclose(w.grad, twice)}"
    )
    opt.step()
