import torch
from freed_graph_report import report_freed
from torch import nn

torch.manual_seed(0)
torch.autograd.set_detect_anomaly(True)  # to name the lines
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
x, target = torch.randn(16, 4), torch.randn(16)

out = model(x)
loss_a = (out[:, 0] - target).abs().mean()
loss_b = out[:, 1].pow(2).mean()
loss = loss_a + loss_b
loss.backward()

report_freed(loss)  # both losses were backpropagated by that call
report_freed(loss_a)
loss.backward()
