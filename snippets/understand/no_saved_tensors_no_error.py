import torch

x = torch.tensor(3.0, requires_grad=True)
y = x + 1  # AddBackward0 saves no tensor

for _ in range(3):
    y.backward()  # no error: nothing was freed that this pass needs
print(f"x.grad = {x.grad}  (three passes silently added up)")
