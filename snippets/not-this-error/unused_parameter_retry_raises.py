import torch
from torch import nn

torch.manual_seed(0)
encoder = nn.Linear(3, 4)
head_a, head_b = nn.Linear(4, 1), nn.Linear(4, 1)
params = [
    *encoder.parameters(),
    *head_a.parameters(),
    *head_b.parameters(),
]

features = encoder(torch.randn(8, 3))
loss_a = head_a(features).pow(2).mean()
try:
    grads = torch.autograd.grad(loss_a, params)
except RuntimeError as e:
    print(f"first call: {str(e)[:44]}...")

# The failed call had run the backward pass first: the graph is freed.
grads = torch.autograd.grad(loss_a, params, allow_unused=True)
