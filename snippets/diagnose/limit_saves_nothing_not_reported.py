import torch
from freed_graph_report import report_freed, watch

w = torch.tensor([1.0, 2.0], requires_grad=True)
with watch():
    penalty = (w - 1.0).sum()  # sub and sum save no tensor
    penalty.backward()
    penalty.backward()  # runs again, adds to .grad: no error
    print(f"w.grad = {w.grad.tolist()}  (two passes added up)")
    ran = report_freed(penalty)  # ask before a second backward
