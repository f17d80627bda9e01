# An SRGAN's manual training loop under AMP (one GradScaler, bf16
# autocast on CPU), gradients clipped for both networks, each after
# scaler.unscale_ of its own optimizer.
# https://github.com/ESAOpenSR/SRGAN/pull/88
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import clip_grad_norm_

torch.manual_seed(0)
gen = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.PReLU(),
                    nn.Conv2d(16, 12, 3, padding=1), nn.PixelShuffle(2))
disc = nn.Sequential(nn.Conv2d(3, 16, 3, stride=2, padding=1),
                     nn.LeakyReLU(0.2), nn.Flatten(),
                     nn.Linear(16 * 4 * 4, 1))
opt_g = torch.optim.SGD(gen.parameters(), lr=0.5, momentum=0.9)
opt_d = torch.optim.SGD(disc.parameters(), lr=0.05, momentum=0.9)
scaler = torch.amp.GradScaler("cpu")
print(f"scaler enabled {scaler.is_enabled()}, "
      f"scale {scaler.get_scale():.0f}")
coarse = torch.randn(8, 16, 3, 4, 4)
hr = F.interpolate(coarse.flatten(0, 1), scale_factor=2,
                   mode="bilinear").unflatten(0, (8, 16))
lr = F.avg_pool2d(hr.flatten(0, 1), 2).unflatten(0, (8, 16))
ones, zeros = torch.ones(16, 1), torch.zeros(16, 1)
bce = F.binary_cross_entropy_with_logits
for step in range(8):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        sr = gen(lr[step])
        real, fake = disc(hr[step]), disc(sr.detach())
    d_loss = bce(real.float(), ones) + bce(fake.float(), zeros)
    opt_d.zero_grad()
    scaler.scale(d_loss).backward()
    scaler.unscale_(opt_d)
    clip_grad_norm_(disc.parameters(), 1.0)
    scaler.step(opt_d)

    with torch.autocast("cpu", dtype=torch.bfloat16):
        adv = disc(sr)
    content = F.l1_loss(sr.float(), hr[step])
    g_loss = content + 1e-3 * bce(adv.float(), ones)
    opt_g.zero_grad()
    scaler.scale(g_loss).backward()
    scaler.unscale_(opt_g)
    clip_grad_norm_(gen.parameters(), 1.0)
    scaler.step(opt_g)
    scaler.update()
    used = torch.cat([p.grad.flatten() for p in gen.parameters()])
    print(f"step {step}: d_loss {d_loss.item():.4f}, content (L1) "
          f"{content.item():.4f}, generator gradient norm the step "
          f"used {used.norm().item():.3g}")
