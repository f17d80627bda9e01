"""A Linear layer's summed output made once, then backpropagated in a
loop of 100.

Source: https://discuss.pytorch.org/t/which-is-freed-which-is-not/8636
The user wanted to know when the graph is made and what is freed:
their Example 1 (y = torch.sum(x(a)) and y.backward() inside the
loop, 100 times) runs; their Example 2, the same with y made once
before the loop, raises this error. The answer annotates Example 1:
each x(a) makes a new graph, reachable only from its output, and
each backward frees the one it went through.
Kept: Example 2 as posted (Linear(3, 3), a of 2x3 from randn without
requires_grad, y = torch.sum(x(a)) before the loop, y.backward()
100 times); changed: Variable became a plain tensor, seeded, a
progress print.
"""

import torch

torch.manual_seed(0)
x = torch.nn.Linear(3, 3)
a = torch.randn(2, 3)
y = torch.sum(x(a))
for i in range(100):
    y.backward()
    print(f"backward {i}: weight grad {x.weight.grad.sum().item():.4f}")
