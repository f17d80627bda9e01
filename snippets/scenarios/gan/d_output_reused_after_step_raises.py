import torch
from torch import nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()
ones, zeros = torch.ones(4, 1), torch.zeros(4, 1)

opt_d.zero_grad()
opt_g.zero_grad()
real = torch.randn(4, 2) + 3.0
fake = G(torch.randn(4, 2))
d_fake = D(fake)  # computed once, to save a forward pass

loss_d = bce(D(real), ones) + bce(d_fake, zeros)
loss_d.backward(retain_graph=True)  # d_fake is needed again below
opt_d.step()  # changes D's weights in place
print(f"D step done, loss_d = {loss_d.item():.4f}")

# G step on the D output of before the D step.
loss_g = bce(d_fake, ones)
loss_g.backward()
