import torch
from torch import nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
head = nn.Linear(16, 1)
opt = torch.optim.SGD(head.parameters(), lr=0.1)  # the head only
x, y = torch.randn(32, 6), torch.randn(32, 1)

early = encoder(x)  # computed before freezing: it has a graph
# Frozen for good: no parameter of the encoder requires grad, so
# nothing it computes records a graph, with or without no_grad().
# eval() fixes BatchNorm and dropout layers too, where there are any.
encoder.eval().requires_grad_(False)
features = encoder(x)
print(f"before freezing: grad_fn {type(early.grad_fn).__name__}")
print(f"after freezing: grad_fn {features.grad_fn}")

for step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(head(features), y)
    loss.backward()  # the graph starts at the head
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")

print(f"encoder weight .grad is None: {encoder[0].weight.grad is None}")
