import torch


def rows(x):
    return x.unbind(0)


torch.manual_seed(0)
x = torch.randn(2, 3, requires_grad=True)

first, second = rows(x)
first.sum().backward()
second.sum().backward()  # eager: UnbindBackward saves nothing
print("eager: one backward per output works")

first, second = torch.compile(rows, backend="aot_eager")(x)
first.sum().backward()
second.sum().backward()
