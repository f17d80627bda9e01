import torch

x = torch.tensor(3.0, requires_grad=True)

for step in range(2):
    y = x**2  # a fresh graph each time, with its own saved tensors
    y.backward()
    print(f"step {step}: x.grad = {x.grad}")
    # .grad adds up over backward calls: clear it, unless you want a sum
    x.grad = None
