import torch
from torch import nn

torch.manual_seed(0)
encoder = nn.Linear(3, 4)  # frozen, pretrained
head = nn.Linear(4, 1)  # trained
opt = torch.optim.SGD(head.parameters(), lr=0.1)
x, target = torch.randn(8, 3), torch.randn(8, 1)

with torch.no_grad():  # no graph either, but a normal tensor
    features = encoder(x)

for step in range(2):  # reusing them is fine: they carry no graph
    loss = nn.functional.mse_loss(head(features), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} done")
