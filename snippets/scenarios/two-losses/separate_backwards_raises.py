import torch
from torch import nn
from torch.nn import functional as F


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(4, 16), nn.ReLU())
        self.value = nn.Linear(16, 1)  # regression head
        self.label = nn.Linear(16, 3)  # classification head

    def forward(self, x):
        h = self.trunk(x)  # shared by both heads
        return self.value(h), self.label(h)


torch.manual_seed(0)
model = TwoHeads()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4)
value_target, label_target = torch.randn(8, 1), torch.randint(3, (8,))

for step in range(2):
    opt.zero_grad()
    value, logits = model(x)
    loss_value = F.mse_loss(value, value_target)
    loss_label = F.cross_entropy(logits, label_target)
    loss_value.backward()  # frees the trunk's saved tensors
    print(f"step {step}: value loss backpropagated")
    loss_label.backward()  # its path runs through the trunk too
    opt.step()
