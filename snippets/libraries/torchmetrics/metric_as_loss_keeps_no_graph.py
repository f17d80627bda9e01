"""torchmetrics 1.9.0, run unmodified: what a metric keeps when its
forward value is used as a loss, step after step.

MeanSquaredError's forward returns this batch's value with its graph,
so it can be a loss; its summed states are updated with gradients off,
so compute() and the next step's forward reach no freed graph.
"""

import torch
import torchmetrics

torch.manual_seed(0)
net = torch.nn.Linear(3, 1)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
mse = torchmetrics.MeanSquaredError()
x, y = torch.randn(8, 3), torch.randn(8, 1)

for step in range(3):
    out = net(x)
    loss = mse(out, y)  # this batch's value, with its graph
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.3f}")

state = mse.sum_squared_error
print(f"summed state has a graph: {state.grad_fn is not None}")
print(f"compute() has a graph: {mse.compute().requires_grad}")
