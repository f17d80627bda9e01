import torch
from freed_graph_report import report_freed
from torch import nn
from torch.nn.utils import parametrize


class UnitRows(nn.Module):
    def forward(self, weight):
        return weight / weight.norm(dim=1, keepdim=True)


torch.manual_seed(0)
torch.autograd.set_detect_anomaly(True)  # to name the lines
layer = nn.Linear(3, 2)
parametrize.register_parametrization(layer, "weight", UnitRows())
opt = torch.optim.SGD(layer.parameters(), lr=0.1)

with parametrize.cached():  # held open around two steps
    for step in range(2):
        x, target = torch.randn(8, 3), torch.randn(8, 2)
        loss = nn.functional.mse_loss(layer(x), target)
        print(f"step {step}:")
        report_freed(loss)
        opt.zero_grad()
        loss.backward()
        opt.step()
