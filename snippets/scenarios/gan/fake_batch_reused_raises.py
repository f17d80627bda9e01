import torch
from torch import nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()
ones, zeros = torch.ones(4, 1), torch.zeros(4, 1)

for step in range(2):
    opt_d.zero_grad()
    opt_g.zero_grad()
    real = torch.randn(4, 2) + 3.0
    fake = G(torch.randn(4, 2))

    # D step: real -> 1, fake -> 0. This backward runs through D
    # and on into G, freeing the tensors G's layers saved.
    loss_d = bce(D(real), ones) + bce(D(fake), zeros)
    loss_d.backward()
    opt_d.step()
    print(f"step {step}: D step done, loss_d = {loss_d.item():.4f}")

    # G step: D should call the same fake batch real. Its backward
    # needs G's saved tensors again.
    loss_g = bce(D(fake), ones)
    loss_g.backward()
    opt_g.step()
