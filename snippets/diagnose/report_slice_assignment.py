import torch
from freed_graph_report import report_freed

torch.autograd.set_detect_anomaly(True)  # to name the lines
w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
a = w.clone()
a[0] = 5.0  # assigning into a slice: a CopySlices node
z = a.sum()
z.backward()

report_freed(z)
z.backward()  # fails, though no _saved_ attribute here was freed
