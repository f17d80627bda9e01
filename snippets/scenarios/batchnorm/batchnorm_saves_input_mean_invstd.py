import torch
from torch import nn

torch.manual_seed(0)
bn = nn.BatchNorm1d(3)
x = torch.randn(8, 3)
h = bn(x)
node = h.grad_fn
print(f"h.grad_fn = {type(node).__name__}")
for name in sorted(a for a in dir(node) if a.startswith("_saved_")):
    value = getattr(node, name)
    if isinstance(value, torch.Tensor):
        value = f"tensor of shape {tuple(value.shape)}"
    print(f"  {name:<19} {value}")

# result1 and result2 are the batch statistics of the forward pass.
mean = x.mean(0)
invstd = (x.var(0, unbiased=False) + bn.eps).rsqrt()
print(
    "_saved_result1 is the batch mean:",
    node._saved_result1.allclose(mean),
)
print("_saved_result2 is 1/std:", node._saved_result2.allclose(invstd))

h.sum().backward()
try:
    node._saved_input
except RuntimeError as err:
    print("after backward, _saved_input:", str(err).split(" (")[0])
