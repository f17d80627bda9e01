# A 1-D denoising diffusion model whose data go through a Conv1d that
# maps them to the network's input shape: it runs on each batch inside
# the loop; the EMA copy and the validation run under no_grad.
import copy

import torch
from torch import nn

torch.manual_seed(0)
to_input = nn.Conv1d(3, 4, kernel_size=3, padding=1)
denoiser = nn.Sequential(
    nn.Linear(4 * 16 + 1, 64), nn.SiLU(), nn.Dropout(0.1),
    nn.Linear(64, 4 * 16))
ema = copy.deepcopy(denoiser).requires_grad_(False)
optimizer = torch.optim.Adam(
    [*to_input.parameters(), *denoiser.parameters()], lr=2e-3)
alphas = torch.linspace(0.99, 0.2, 50)
raw = torch.randn(96, 3, 16).cumsum(-1) / 4
train_raw, val_raw = raw[:64], raw[64:]


def diffusion_loss(model, x0, gen):
    t = torch.randint(50, (x0.shape[0],), generator=gen)
    a = alphas[t].view(-1, 1, 1)
    noise = torch.randn(x0.shape, generator=gen)
    xt = a.sqrt() * x0 + (1 - a).sqrt() * noise
    inp = torch.cat([xt.flatten(1), t[:, None] / 50], 1)
    return nn.functional.mse_loss(model(inp), noise.flatten(1))


before = to_input.weight.detach().clone()
for epoch in range(3):
    denoiser.train()
    gen = torch.Generator().manual_seed(epoch)
    none = 0
    for batch in range(4):
        x0 = to_input(train_raw[batch * 16:(batch + 1) * 16])
        loss = diffusion_loss(denoiser, x0, gen)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        none += to_input.weight.grad is None
        with torch.no_grad():
            for e, p in zip(ema.parameters(), denoiser.parameters()):
                e.lerp_(p, 0.1)
    denoiser.eval()
    with torch.no_grad():
        val = diffusion_loss(ema, to_input(val_raw),
                             torch.Generator().manual_seed(99))
    print(f"epoch {epoch}: train loss {loss.item():.4f}, EMA val loss "
          f"{val.item():.4f}, to_input.weight grad None at {none} "
          f"of 4 steps")
moved = (to_input.weight - before).abs().max().item()
print(f"to_input.weight largest change: {moved:.4f}")
