import torch

x = torch.ones(2, requires_grad=True)
loss = (x * x).sum()

loss.backward()
loss.backward()
