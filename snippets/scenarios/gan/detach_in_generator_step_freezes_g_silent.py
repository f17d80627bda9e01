import torch
from torch import nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()
ones, zeros = torch.ones(4, 1), torch.zeros(4, 1)
g_before = [p.detach().clone() for p in G.parameters()]

for step in range(2):
    opt_d.zero_grad()
    opt_g.zero_grad()
    real = torch.randn(4, 2) + 3.0
    fake = G(torch.randn(4, 2)).detach()  # detached for both steps

    loss_d = bce(D(real), ones) + bce(D(fake), zeros)
    loss_d.backward()
    opt_d.step()

    # No error: D's parameters still require grad, so loss_g has a
    # graph. It just ends at D's input, before reaching G.
    loss_g = bce(D(fake), ones)
    loss_g.backward()
    opt_g.step()  # skips parameters whose .grad is None
    print(
        f"step {step}: loss_g = {loss_g.item():.4f}, G.grad is None: "
        f"{all(p.grad is None for p in G.parameters())}"
    )

unchanged = all(
    torch.equal(p, p0) for p, p0 in zip(G.parameters(), g_before)
)
print(f"G's weights unchanged after training: {unchanged}")
