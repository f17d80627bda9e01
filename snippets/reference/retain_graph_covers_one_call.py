import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**2

y.backward(retain_graph=True)
y.backward()  # allowed: the call before kept the graph
print(f"two passes done, x.grad = {x.grad}")

y.backward()  # this call's predecessor did not retain: freed
