"""A product t @ a made once before a loop, each iteration's loss
built from it and backpropagated with retain_graph=True.

Source: https://discuss.pytorch.org/t/backpropagation-graph-is-reused-while-it-shouldnt/24554
The user wanted the loop to run without computing t @ a again in
every iteration, asking whether retain_graph=True is the way and
whether it keeps each iteration's "tail" as well.
Kept: the snippet as posted; changed: loss.backward(retain_graph=
True), so that y's small graph survives each backward (each
iteration's tail is freed when x_out and loss are made again, the
only references to it), and a check that the accumulated gradients
of t and a equal those of the user's working line, t @ (x + t @ a),
on copies of t and a.
"""

import torch

measure = torch.nn.MSELoss()

x = torch.tensor([1, 0], dtype=torch.float64)
t = torch.eye(2, dtype=torch.float64, requires_grad=True)
a = torch.ones(2, dtype=torch.float64, requires_grad=True)
y = t @ a

for i in range(2):
    x_out = t @ (x + y)
    loss = measure(x_out, x)
    loss.backward(retain_graph=True)
    print(f"iteration {i}: loss {loss.item():.4f}")

# reference: the user's working line, on copies of t and a
t2 = t.detach().clone().requires_grad_()
a2 = a.detach().clone().requires_grad_()
for i in range(2):
    x_out2 = t2 @ (x + t2 @ a2)  # Works fine.
    measure(x_out2, x).backward()
same = torch.allclose(t.grad, t2.grad) and torch.allclose(
    a.grad, a2.grad
)
print(f"grads of t and a = the recomputing loop's: {same}")
