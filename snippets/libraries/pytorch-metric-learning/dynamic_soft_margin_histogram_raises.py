"""Source: https://github.com/KevinMusgrave/pytorch-metric-learning/issues/731

Library: pytorch-metric-learning 2.9.0, run unmodified. What the user
wanted: train a descriptor network (its last layer a 1x1 convolution)
with the library's DynamicSoftMarginLoss, one ordinary backward and
optimizer step per batch.
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
    loss.backward()
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")
