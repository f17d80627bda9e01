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
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4)
value_target, label_target = torch.randn(8, 1), torch.randint(3, (8,))

# --8<-- [start:fix]
for step in range(3):
    opt.zero_grad()
    value, logits = model(x)
    loss_value = F.mse_loss(value, value_target)
    loss_label = F.cross_entropy(logits, label_target)
    # One backward: the trunk is walked once, with both gradients.
    (loss_value + loss_label).backward()
    opt.step()
    # --8<-- [end:fix]
    print(
        f"step {step}: value {loss_value.item():.4f}, "
        f"label {loss_label.item():.4f}"
    )
