import torch
from torch import nn

torch.manual_seed(0)

backbone = nn.Sequential(
    nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 32), nn.ReLU()
)
depth_head = nn.Linear(32, 1)  # task 1: regression
class_head = nn.Linear(32, 3)  # task 2: classification
opt_backbone = torch.optim.SGD(backbone.parameters(), lr=0.1)
opt_depth = torch.optim.SGD(depth_head.parameters(), lr=0.1)
opt_class = torch.optim.SGD(class_head.parameters(), lr=0.1)
x = torch.randn(16, 10)
depth, label = torch.randn(16, 1), torch.randint(0, 3, (16,))

for step in range(3):
    for opt in (opt_backbone, opt_depth, opt_class):
        opt.zero_grad()
    features = backbone(x)
    l1 = nn.functional.mse_loss(depth_head(features), depth)
    l1.backward()
    opt_depth.step()
    l2 = nn.functional.cross_entropy(class_head(features), label)
    print(
        f"step {step}: depth loss {l1.item():.3f}, "
        f"class loss {l2.item():.3f}"
    )
    l2.backward()
    opt_class.step()
    opt_backbone.step()
