"""A product t @ a made once before a loop, each iteration's loss
built from it and backpropagated.

Source: https://discuss.pytorch.org/t/backpropagation-graph-is-reused-while-it-shouldnt/24554
The user's (made up) loop makes a new x_out and a new loss in every
iteration, and gets this error at the second iteration's backward;
with y's expression written out in the loop (t @ (x + t @ a)) it
runs. They asked what is built and freed, and how to make the loop
work without computing t @ a again in every iteration: with
retain_graph=True, though without keeping the "tail" that each
iteration builds again.
Kept: the snippet as posted (MSELoss, x = [1, 0], t the 2x2 identity
and a ones(2), both float64 with requires_grad, y = t @ a before the
loop, two iterations of x_out = t @ (x + y), loss, loss.backward());
changed: a progress print.
"""

import torch

measure = torch.nn.MSELoss()

x = torch.tensor([1, 0], dtype=torch.float64)
t = torch.eye(2, dtype=torch.float64, requires_grad=True)
a = torch.ones(2, dtype=torch.float64, requires_grad=True)
y = t @ a

for i in range(2):
    x_out = t @ (x + y)  # Raises `RuntimeError` later on.
    # x_out = t @ (x + t @ a)  # Works fine.
    loss = measure(x_out, x)
    loss.backward()
    print(f"iteration {i}: loss {loss.item():.4f}")
