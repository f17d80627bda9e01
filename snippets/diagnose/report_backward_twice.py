import torch
from freed_graph_report import report_freed
from torch import nn

torch.manual_seed(0)
torch.autograd.set_detect_anomaly(True)  # to name the lines
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
x, target = torch.randn(16, 4), torch.randn(16, 1)

loss = nn.functional.mse_loss(model(x), target)
loss.backward()  # a first pass, to log the gradient norm

report_freed(loss)
loss.backward()  # the training pass: same loss, same graph
