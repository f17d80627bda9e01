import warnings

import torch

x = torch.tensor(3.0, requires_grad=True)
y = x**2
y.backward()

# Turned on after the forward pass: the nodes recorded nothing.
torch.autograd.set_detect_anomaly(True)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        y.backward()
    finally:
        # The message ends with PyTorch's own source location; cut it.
        print(str(caught[0].message).split(" (Triggered")[0])
