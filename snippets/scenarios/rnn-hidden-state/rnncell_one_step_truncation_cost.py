import torch
from torch import nn

torch.manual_seed(0)
cell = nn.RNNCell(input_size=3, hidden_size=4)
head = nn.Linear(4, 1)
xs, ys = torch.randn(6, 1, 3), torch.randn(6, 1, 1)


def weight_hh_grad(detach_each_step):
    cell.zero_grad()
    h = torch.zeros(1, 4)
    for t in range(6):
        h = cell(xs[t], h)
        loss = nn.functional.mse_loss(head(h), ys[t])
        # retain_graph: the full-sequence case reuses earlier steps
        loss.backward(retain_graph=not detach_each_step)
        if detach_each_step:
            h = h.detach()
    return cell.weight_hh.grad.clone()


full = weight_hh_grad(detach_each_step=False)
truncated = weight_hh_grad(detach_each_step=True)
print(f"|weight_hh grad|, through all steps: {full.norm():.4f}")
print(f"|weight_hh grad|, one step at a time: {truncated.norm():.4f}")
print(f"dropped by the truncation: {(full - truncated).norm():.4f}")
