import torch

w = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(1.0, requires_grad=True)
loss = (3 * w + b) ** 2

loss.backward(inputs=[w])  # gradients go into w.grad only
print(f"w.grad = {w.grad}, b.grad = {b.grad}")
