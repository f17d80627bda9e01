import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 16))
depth_head = nn.Linear(16, 1)  # task A: regression
class_head = nn.Linear(16, 3)  # task B: classification
# One optimizer per module, each with its own learning rate.
opt_encoder = torch.optim.SGD(encoder.parameters(), lr=0.05)
opt_depth = torch.optim.SGD(depth_head.parameters(), lr=0.1)
opt_class = torch.optim.SGD(class_head.parameters(), lr=0.01)

x = torch.randn(32, 8)
depth, label = torch.randn(32, 1), torch.randint(0, 3, (32,))

for step in range(3):
    for opt in (opt_encoder, opt_depth, opt_class):
        opt.zero_grad()
    features = encoder(x)
    loss_depth = F.mse_loss(depth_head(features), depth)
    loss_depth.backward()
    opt_depth.step()
    print(f"step {step}: depth head stepped")
    loss_class = F.cross_entropy(class_head(features), label)
    loss_class.backward()  # raises: the encoder's graph is freed
    opt_class.step()
    opt_encoder.step()
