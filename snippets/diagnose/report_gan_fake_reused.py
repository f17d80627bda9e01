import torch
from freed_graph_report import report_freed
from torch import nn

torch.manual_seed(0)
torch.autograd.set_detect_anomaly(True)  # to name the lines
G = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 3))
D = nn.Sequential(nn.Linear(3, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()
real, z = torch.randn(8, 3), torch.randn(8, 2)
ones, zeros = torch.ones(8, 1), torch.zeros(8, 1)

fake = G(z)
# Discriminator step: fake is not detached, so this frees G's graph.
d_loss = bce(D(real), ones) + bce(D(fake), zeros)
opt_d.zero_grad()
d_loss.backward()
opt_d.step()

# Generator step on the same fake.
g_loss = bce(D(fake), ones)
report_freed(g_loss)
opt_g.zero_grad()
g_loss.backward()
