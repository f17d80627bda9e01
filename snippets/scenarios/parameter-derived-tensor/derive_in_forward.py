import torch
from torch import nn
from torch.nn import functional as F


# --8<-- [start:fix]
class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = nn.Linear(4, 3)
        self.log_temperature = nn.Parameter(torch.zeros(()))

    def forward(self, x):
        # Derived on every call: a new exp node for each graph.
        temperature = self.log_temperature.exp()
        return self.linear(x) / temperature
        # --8<-- [end:fix]


torch.manual_seed(0)
model = Classifier()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, target = torch.randn(8, 4), torch.randint(3, (8,))

for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), target)
    loss.backward()
    opt.step()
    temperature = model.log_temperature.exp().item()
    print(
        f"step {step}: loss {loss.item():.4f}, "
        f"temperature {temperature:.4f}"
    )
