# A GAN that trains the generator first, then the discriminator on the
# generator's output detached (Stack Overflow, "How does loss.
# backward() work when retain_graph=True is specified?").
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
D = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 1))
optim_g = torch.optim.Adam(G.parameters(), lr=1e-3)
optim_d = torch.optim.Adam(D.parameters(), lr=1e-3)
real = torch.randn(5, 64, 2) * 0.5 + 1.0
ones, zeros = torch.ones(64, 1), torch.zeros(64, 1)
bce = F.binary_cross_entropy_with_logits

for it in range(5):
    z = torch.randn(64, 4)
    fake = G(z)
    loss_g = bce(D(fake), ones)
    optim_g.zero_grad()
    loss_g.backward()
    optim_g.step()

    loss_d = bce(D(real[it]), ones) + bce(D(fake.detach()), zeros)
    optim_d.zero_grad()
    loss_d.backward()
    d_grads = all(p.grad is not None for p in D.parameters())
    optim_d.step()
    print(f"it {it}: loss_g {loss_g.item():.3f} "
          f"loss_d {loss_d.item():.3f}"
          f"; D has grads {d_grads}")
