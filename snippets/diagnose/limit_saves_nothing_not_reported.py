import torch
from freed_graph_report import report_freed

torch.autograd.set_detect_anomaly(True)  # to name the lines
w = torch.tensor([1.0, 2.0], requires_grad=True)
penalty = (w - 1.0).sum()  # sub and sum save no tensor
penalty.backward()

report_freed(penalty)  # nothing to find, and yet:
penalty.backward()  # runs again and adds to .grad
print(f"w.grad = {w.grad.tolist()}  (two passes added up)")
