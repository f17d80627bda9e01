import torch
from torch import nn

torch.manual_seed(0)
cell = nn.GRUCell(input_size=3, hidden_size=4)
head = nn.Linear(4, 1)
params = [*cell.parameters(), *head.parameters()]
opt = torch.optim.SGD(params, lr=0.1)


def carried(**values):
    """What each value brings into this iteration from the last one."""
    for name, value in values.items():
        if not isinstance(value, torch.Tensor):
            print(f"  {name}: {type(value).__name__}, no graph")
        elif value.grad_fn is not None:
            grad_fn = type(value.grad_fn).__name__
            print(f"  {name}: grad_fn={grad_fn}  <- carries a graph")
        else:
            print(f"  {name}: requires_grad={value.requires_grad}")


h = torch.zeros(2, 4)
running_loss = 0.0
for step in range(2):
    print(f"step {step}:")
    carried(h=h, running_loss=running_loss, weight=head.weight)
    x, target = torch.randn(2, 3), torch.randn(2, 1)
    h = cell(x, h)
    loss = nn.functional.mse_loss(head(h), target)
    running_loss += loss.item()
    opt.zero_grad()
    loss.backward()
    opt.step()
