import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x.exp()  # saves its result
y.sum().backward()

# Saved-tensor hooks on a tensor the backward pass already released.
saved = y.grad_fn._raw_saved_result
saved.register_hooks(lambda t: t, lambda t: t)
