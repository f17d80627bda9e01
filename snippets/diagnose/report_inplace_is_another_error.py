import torch
from freed_graph_report import report_freed
from torch import nn

torch.manual_seed(0)
torch.autograd.set_detect_anomaly(True)  # to name the lines
layer = nn.Linear(3, 4)
hidden = torch.sigmoid(layer(torch.randn(2, 3)))
hidden += 1.0  # in place: sigmoid saved this very tensor
loss = hidden.pow(2).mean()

report_freed(loss)
loss.backward()
