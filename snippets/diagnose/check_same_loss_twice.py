import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(3, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 3), torch.randn(8, 1)

for step in range(2):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward(retain_graph=True)  # "fixed" the error
    loss.backward()  # a second pass of the same loss
    print(f"step {step}: |grad| {model.weight.grad.norm():.4f}")
    opt.step()
