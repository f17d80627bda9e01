import torch
from torch import nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()
ones, zeros = torch.ones(4, 1), torch.zeros(4, 1)
into_g = []  # one entry per backward pass that reaches G

for step in range(2):
    opt_d.zero_grad()
    opt_g.zero_grad()
    real = torch.randn(4, 2) + 3.0
    fake = G(torch.randn(4, 2))
    into_g.clear()
    fake.register_hook(lambda grad: into_g.append(1))  # G is below fake

    # --8<-- [start:fix]
    # D step: detach, so this backward stops at D's input and
    # leaves G's graph (and G's .grad) alone.
    loss_d = bce(D(real), ones) + bce(D(fake.detach()), zeros)
    loss_d.backward()
    opt_d.step()

    # G step: the same fake, not detached, so gradients reach G.
    loss_g = bce(D(fake), ones)
    loss_g.backward()
    # --8<-- [end:fix]
    opt_g.step()
    untouched = len(into_g) == 1  # the G step's backward only
    print(
        f"step {step}: loss_d = {loss_d.item():.4f}, "
        f"loss_g = {loss_g.item():.4f}, "
        f"G.grad untouched by D step: {untouched}"
    )
