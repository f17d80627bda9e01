import torch
from freed_graph_report import report_freed

torch.autograd.set_detect_anomaly(True)  # to name the lines
x = torch.tensor([0.5, 1.0], requires_grad=True)
w = torch.tensor([2.0, 3.0], requires_grad=True)
h = x.exp()
h.sum().backward()  # frees ExpBackward0
y = (h * w).sum()

report_freed(y)  # lists ExpBackward0 as freed
(grad_w,) = torch.autograd.grad(y, w)  # yet this runs: exp not needed
print(f"grad_w = {[round(g, 4) for g in grad_w.tolist()]}")
