import torch

torch.manual_seed(0)
w = torch.randn(3, 6, requires_grad=True)
state = torch.randn(2, 3) @ w  # h and c computed together
h, c = state.chunk(2, dim=1)  # h and c are views of state

h_new = torch.zeros_like(h)  # a new tensor: always possible
print(f"zeros_like: grad_fn {h_new.grad_fn}")
h.detach_()  # a view cannot be detached in place
