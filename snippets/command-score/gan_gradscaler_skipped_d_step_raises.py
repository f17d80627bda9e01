import torch
from torch import nn

torch.manual_seed(0)

G = nn.Sequential(
    nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 64), nn.Tanh()
)
D = nn.Sequential(
    nn.Linear(64, 128), nn.LeakyReLU(0.2), nn.Linear(128, 1)
)
opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.5, 0.999))
opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.5, 0.999))
scaler = torch.amp.GradScaler(
    "cpu"
)  # mixed precision: skips a step whose gradients overflow
bce = nn.BCEWithLogitsLoss(reduction="sum")
ones, zeros = torch.ones(16, 1), torch.zeros(16, 1)

for step in range(6):
    real = torch.rand(16, 64) * 2 - 1
    with torch.autocast("cpu", dtype=torch.float16):
        fake = G(torch.randn(16, 16))
        loss_d = bce(D(real), ones) + bce(D(fake), zeros)
    opt_d.zero_grad()
    scaler.scale(loss_d).backward()
    scaler.step(opt_d)
    with torch.autocast("cpu", dtype=torch.float16):
        loss_g = bce(D(fake), ones)
    print(
        f"step {step}: loss_d {loss_d.item():.3f}, "
        f"loss_g {loss_g.item():.3f}, scale {scaler.get_scale():.0f}"
    )
    opt_g.zero_grad()
    scaler.scale(loss_g).backward()
    scaler.step(opt_g)
    scaler.update()
