import torch
from torch import nn
from torch.nn import functional as F
from torch.nn.utils import parametrize


class UnitRows(nn.Module):
    def forward(self, weight):
        return F.normalize(weight, dim=1)


torch.manual_seed(0)
model = nn.Linear(4, 3)
parametrize.register_parametrization(model, "weight", UnitRows())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, target = torch.randn(8, 4), torch.randint(3, (8,))

# cached() computes model.weight once for the whole block: that is
# the derived-once tensor again, shared by every step inside it.
with parametrize.cached():
    for step in range(3):
        opt.zero_grad()
        loss = F.cross_entropy(model(x), target)
        loss.backward()
        opt.step()
        print(f"step {step}: loss {loss.item():.4f}")
