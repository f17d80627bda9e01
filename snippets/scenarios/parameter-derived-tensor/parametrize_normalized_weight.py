import torch
from torch import nn
from torch.nn import functional as F
from torch.nn.utils import parametrize


class UnitRows(nn.Module):
    def forward(self, weight):
        return F.normalize(weight, dim=1)


torch.manual_seed(0)
model = nn.Linear(4, 3)
# model.weight is now computed from the stored original on each access.
parametrize.register_parametrization(model, "weight", UnitRows())
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, target = torch.randn(8, 4), torch.randint(3, (8,))

for step in range(3):
    opt.zero_grad()
    loss = F.cross_entropy(model(x), target)
    loss.backward()
    opt.step()
    unit = torch.allclose(model.weight.norm(dim=1), torch.ones(3))
    print(f"step {step}: loss {loss.item():.4f}, unit rows: {unit}")
