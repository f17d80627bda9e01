"""Source: https://github.com/KevinMusgrave/pytorch-metric-learning/issues/731

Library: pytorch-metric-learning 2.9.0, run unmodified. The wrong
fix: `retain_graph=True`, which the error message suggests. The
second backward now reaches the first batch's graph, whose saved
1x1 convolution weight the optimizer step has changed since.
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

for step in range(2):
    patches = torch.randn(8, 3, 6, 6)
    embeddings = net(patches)
    loss = loss_func(embeddings, labels)
    opt.zero_grad()
    loss.backward(retain_graph=True)
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
