"""A Linear layer's summed output made again in each of 100
iterations, each backpropagated once.

Source: https://discuss.pytorch.org/t/which-is-freed-which-is-not/8636
The user wanted to know when the graph is made and what is freed:
their Example 1 (y = torch.sum(x(a)) and y.backward() inside the
loop, 100 times) runs; their Example 2, the same with y made once
before the loop, raises this error.
Kept: Example 2's model, input and loop, y now made inside the loop
(the user's Example 1); changed: Variable became a plain tensor,
seeded, a progress print every 25 backward passes and a check that
the accumulated gradient is 100 times one pass's.
"""

import torch

torch.manual_seed(0)
x = torch.nn.Linear(3, 3)
a = torch.randn(2, 3)
one = torch.autograd.grad(torch.sum(x(a)), [x.weight, x.bias])
for i in range(100):
    y = torch.sum(x(a))
    y.backward()
    if i % 25 == 0:
        print(f"backward {i}: weight grad {x.weight.grad.sum():.4f}")
same = torch.allclose(x.weight.grad, 100 * one[0]) and torch.allclose(
    x.bias.grad, 100 * one[1]
)
print(f"grads = 100 passes of a fresh forward: {same}")
