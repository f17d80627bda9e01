import torch
from torch import nn
from torch.nn import functional as F


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(4, 16), nn.ReLU())
        self.value = nn.Linear(16, 1)
        self.label = nn.Linear(16, 3)

    def forward(self, x):
        h = self.trunk(x)
        return self.value(h), self.label(h)


torch.manual_seed(0)
x = torch.randn(8, 4)
value_target, label_target = torch.randn(8, 1), torch.randint(3, (8,))


def label_grad_now(model):
    # The label loss's trunk gradient at the model's current weights
    model.zero_grad()
    F.cross_entropy(model(x)[1], label_target).backward()
    return model.trunk[0].weight.grad.clone()


for step_between in (False, True):
    torch.manual_seed(1)
    model = TwoHeads()
    opt = torch.optim.SGD(model.parameters(), lr=0.1)
    value, logits = model(x)
    loss_value = F.mse_loss(value, value_target)
    loss_label = F.cross_entropy(logits, label_target)
    opt.zero_grad()
    loss_value.backward(retain_graph=True)
    if step_between:
        opt.step()  # the weights change between the two passes
        opt.zero_grad()
    before = model.trunk[0].weight.grad
    before = 0 if before is None else before.clone()
    loss_label.backward()  # no error either way
    got = model.trunk[0].weight.grad - before
    right = torch.allclose(got, label_grad_now(model))
    print(
        f"step() between the passes: {step_between}, "
        f"label gradient right: {right}"
    )
