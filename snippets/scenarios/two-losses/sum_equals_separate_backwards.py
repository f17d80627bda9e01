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
model = TwoHeads()
x = torch.randn(8, 4)
value_target, label_target = torch.randn(8, 1), torch.randint(3, (8,))


def losses():
    model.zero_grad()
    value, logits = model(x)
    return (
        F.mse_loss(value, value_target),
        F.cross_entropy(logits, label_target),
    )


loss_value, loss_label = losses()
(loss_value + loss_label).backward()
summed = [p.grad.clone() for p in model.parameters()]

loss_value, loss_label = losses()
loss_value.backward(retain_graph=True)
loss_label.backward()
separate = [p.grad.clone() for p in model.parameters()]

same = all(torch.allclose(a, b) for a, b in zip(summed, separate))
print(f"same gradients for all {len(summed)} parameters: {same}")
