import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**2
y.backward()


def pack(t):  # e.g. move the saved tensor to CPU, or compress it
    return t


def unpack(t):
    return t


# Too late: the saved x this would wrap was freed by backward.
y.grad_fn._raw_saved_self.register_hooks(pack, unpack)
