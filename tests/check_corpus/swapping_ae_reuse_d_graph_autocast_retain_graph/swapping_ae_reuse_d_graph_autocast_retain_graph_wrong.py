# swapping-autoencoder-pytorch's train loop without the second forward:
# the D step's graph is kept (retain_graph=True) and reused for G.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(16, 12), nn.Tanh())
generator = nn.Sequential(
    nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 16)
)
discriminator = nn.Sequential(
    nn.Linear(16, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1)
)
g_params = list(encoder.parameters()) + list(generator.parameters())
g_optim = torch.optim.Adam(g_params, lr=2e-3)
d_optim = torch.optim.Adam(discriminator.parameters(), lr=2e-3)
batches = torch.randn(4, 32, 16)


def forward(real):
    code = encoder(real)
    structure, texture = code[:, :6], code[:, 6:]
    fake_img1 = generator(torch.cat([structure, texture], 1))
    fake_img2 = generator(torch.cat([structure, texture.roll(1, 0)], 1))
    return fake_img1, fake_img2


def g_loss_of(real, fake_img1, fake_pred):
    recon = F.l1_loss(fake_img1.float(), real)
    return recon + F.softplus(-fake_pred.float()).mean()


def fresh_g_grads(real):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        fake_img1, fake_img2 = forward(real)
        fake_pred = discriminator(fake_img2)
    loss = g_loss_of(real, fake_img1, fake_pred)
    return torch.autograd.grad(loss, g_params)


def check(i, real):
    used = torch.cat([p.grad.flatten() for p in g_params])
    fresh = torch.cat([g.flatten() for g in fresh_g_grads(real)])
    rel = ((used - fresh).norm() / fresh.norm()).item()
    d_has = all(p.grad is not None for p in discriminator.parameters())
    print(f"step {i}: G grad vs a forward through the current D "
          f"(relative) {rel:.3f}; D has grads {d_has}")


for i, real in enumerate(batches):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        fake_img1, fake_img2 = forward(real)
        fake_pred = discriminator(fake_img2)
        real_pred = discriminator(real)
    d_loss = (F.softplus(fake_pred.float()).mean()
              + F.softplus(-real_pred.float()).mean())
    d_optim.zero_grad()
    d_loss.backward(retain_graph=True)
    d_optim.step()

    g_loss = g_loss_of(real, fake_img1, fake_pred)
    g_optim.zero_grad()
    g_loss.backward()
    check(i, real)
    g_optim.step()
