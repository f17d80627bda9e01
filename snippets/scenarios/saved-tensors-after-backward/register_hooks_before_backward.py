import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**2
calls = []


def pack(t):
    return t


def unpack(t):
    calls.append("unpack")  # backward reads the saved x through here
    return t


# Registered while the saved x still exists, before backward.
y.grad_fn._raw_saved_self.register_hooks(pack, unpack)
y.backward()
print(f"x.grad = {x.grad}, unpack hook calls: {len(calls)}")
