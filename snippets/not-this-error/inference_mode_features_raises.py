import torch
from torch import nn

torch.manual_seed(0)
encoder = nn.Linear(3, 4)  # frozen, pretrained
head = nn.Linear(4, 1)  # trained
x, target = torch.randn(8, 3), torch.randn(8, 1)

with torch.inference_mode():  # features computed once, no graph
    features = encoder(x)

loss = nn.functional.mse_loss(head(features), target)
