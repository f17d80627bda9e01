import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**2

y.backward(retain_graph=True)  # keep pow's saved x for one more pass
print(f"after the first backward:  x.grad = {x.grad}")

y.backward()  # the last pass may free the graph
print(f"after the second backward: x.grad = {x.grad}  (6 + 6)")
