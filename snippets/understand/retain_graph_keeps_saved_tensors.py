import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**2

y.backward(retain_graph=True)
print(f"saved x still there: {y.grad_fn._saved_self}")

y.backward()
print(f"second pass worked; x.grad = {x.grad} = 6 + 6")
