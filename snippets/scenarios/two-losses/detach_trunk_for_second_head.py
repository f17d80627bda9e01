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
        # The "fix": the label head's path now stops at h.
        return self.value(h), self.label(h.detach())


torch.manual_seed(0)
model = TwoHeads()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4)
value_target, label_target = torch.randn(8, 1), torch.randint(3, (8,))
w = model.trunk[0].weight

for step in range(2):
    opt.zero_grad()
    value, logits = model(x)
    loss_value = F.mse_loss(value, value_target)
    loss_label = F.cross_entropy(logits, label_target)
    loss_value.backward()
    before = w.grad.clone()
    loss_label.backward()  # no error any more
    opt.step()
    print(
        f"step {step}: label loss changed the trunk's gradient: "
        f"{not torch.equal(w.grad, before)}"
    )
