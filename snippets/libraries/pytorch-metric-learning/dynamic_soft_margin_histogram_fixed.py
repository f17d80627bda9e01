"""Source: https://github.com/KevinMusgrave/pytorch-metric-learning/issues/731

Library: pytorch-metric-learning 2.9.0, run unmodified. The fix:
detach the loss's running histogram (`hist_`) at the top of each
step, so it keeps its values from the batches before but not their
graphs.
"""

import torch
from pytorch_metric_learning.losses import DynamicSoftMarginLoss

torch.manual_seed(0)

net = torch.nn.Sequential(
    torch.nn.Conv2d(3, 8, kernel_size=3),
    torch.nn.ReLU(),
    torch.nn.AdaptiveAvgPool2d(1),
    torch.nn.Conv2d(8, 8, kernel_size=1),  # the [128, 128, 1, 1]
    torch.nn.Flatten(),
)
loss_func = DynamicSoftMarginLoss()
opt = torch.optim.SGD(net.parameters(), lr=0.1)
labels = torch.arange(4).repeat(2)  # 4 matching pairs of patches

for step in range(3):
    patches = torch.randn(8, 3, 6, 6)
    # --8<-- [start:fix]
    loss_func.hist_ = loss_func.hist_.detach()  # values kept, graph cut
    before = loss_func.hist_.clone()
    embeddings = net(patches)
    loss = loss_func(embeddings, labels)
    opt.zero_grad()
    loss.backward()
    # --8<-- [end:fix]
    grads = all(p.grad.abs().sum() > 0 for p in net.parameters())
    moved = not torch.allclose(loss_func.hist_, before)
    opt.step()
    print(
        f"step {step}: loss {loss.item():.4f}, every grad nonzero: "
        f"{grads}, histogram updated: {moved}"
    )
