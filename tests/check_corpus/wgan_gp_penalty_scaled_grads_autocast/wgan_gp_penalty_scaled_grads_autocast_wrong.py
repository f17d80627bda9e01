# WGAN-GP under AMP (GradScaler, bf16 autocast on CPU). The penalty
# first read interp.grad after the critic loss's backward, which
# raised the backward-twice error; the answer took the gradient with
# torch.autograd.grad(scaler.scale(...), interp, create_graph=True),
# as the AMP examples page does, but left out its next line, the
# multiplication by 1 / scaler.get_scale(): the penalty is computed
# on gradients still multiplied by the scaler's scale.
# https://github.com/pytorch/pytorch/pull/44667
import torch
from torch import nn

torch.manual_seed(0)
gen = nn.Sequential(nn.Linear(4, 32), nn.Tanh(), nn.Linear(32, 2))
critic = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32),
                       nn.Tanh(), nn.Linear(32, 1))
opt_g = torch.optim.Adam(gen.parameters(), lr=1e-3, betas=(0.5, 0.9))
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-3,
                         betas=(0.5, 0.9))
scaler = torch.amp.GradScaler("cpu")
print(f"scaler enabled {scaler.is_enabled()}, "
      f"scale {scaler.get_scale():.0f}")
centers = torch.tensor([[2.0, 2], [-2, 2], [2, -2], [-2, -2]])
real_all = (centers[torch.randint(4, (10, 64))]
            + 0.2 * torch.randn(10, 64, 2))
z_all = torch.randn(10, 64, 4)
eps_all = torch.rand(10, 64, 1)
for it in range(10):
    real, z, eps = real_all[it], z_all[it], eps_all[it]
    with torch.autocast("cpu", dtype=torch.bfloat16):
        fake = gen(z).float().detach()
    interp = (eps * real + (1 - eps) * fake).requires_grad_(True)
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = critic(interp).float()
        w_dist = (critic(real).float().mean()
                  - critic(fake).float().mean())
    grads, = torch.autograd.grad(scaler.scale(out.sum()), interp,
                                 create_graph=True)
    gp = ((grads.norm(2, dim=1) - 1) ** 2).mean()
    ref, = torch.autograd.grad(critic(interp).sum(), interp)
    true_gp = ((ref.norm(2, dim=1) - 1) ** 2).mean()
    c_loss = -w_dist + 10 * gp
    opt_c.zero_grad()
    scaler.scale(c_loss).backward()
    scaler.step(opt_c)

    with torch.autocast("cpu", dtype=torch.bfloat16):
        g_loss = -critic(gen(z)).float().mean()
    opt_g.zero_grad()
    scaler.scale(g_loss).backward()
    scaler.step(opt_g)
    scaler.update()
    print(f"iteration {it}: critic's W estimate {w_dist.item():.4f}, "
          f"penalty used {gp.item():.4g}, penalty of the critic's "
          f"gradients {true_gp.item():.4g}")
