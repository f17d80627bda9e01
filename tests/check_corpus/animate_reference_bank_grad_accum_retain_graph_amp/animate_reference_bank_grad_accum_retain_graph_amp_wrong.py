# Stage-1 style training: a reference net writes its features into a bank that the denoising net
# reads through attention; mixed precision with GradScaler and gradient accumulation.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D, TOK, B = 16, 6, 4
GRAD_ACCUM = 2


class ReferenceControl:
    def __init__(self):
        self.bank = []

    def write(self, feats):
        self.bank.append(feats)

    def read(self):
        return torch.cat(self.bank, dim=1)

    def clear(self):
        self.bank.clear()


class ReferenceNet(nn.Module):
    def __init__(self, control):
        super().__init__()
        self.proj = nn.Sequential(nn.Linear(D, D), nn.GELU(), nn.Linear(D, D))
        self.control = control

    def forward(self, ref):
        self.control.write(self.proj(ref))


class DenoisingNet(nn.Module):
    def __init__(self, control):
        super().__init__()
        self.inp = nn.Linear(D, D)
        self.q, self.k, self.v = nn.Linear(D, D), nn.Linear(D, D), nn.Linear(D, D)
        self.out = nn.Linear(D, D)
        self.control = control

    def forward(self, noisy):
        h = self.inp(noisy)
        ctx = torch.cat([h, self.control.read()], dim=1)
        h = h + F.scaled_dot_product_attention(self.q(h), self.k(ctx), self.v(ctx))
        return self.out(h)


control = ReferenceControl()
reference_net, denoising_net = ReferenceNet(control), DenoisingNet(control)
params = list(reference_net.parameters()) + list(denoising_net.parameters())
optimizer = torch.optim.AdamW(params, lr=1e-3)
scaler = torch.amp.GradScaler("cpu")

for global_step in range(6):
    sync_gradients = (global_step + 1) % GRAD_ACCUM == 0
    ref = torch.randn(B, TOK, D)
    target_noise = torch.randn(B, TOK, D)
    noisy = ref.roll(1, dims=1) + target_noise
    with torch.autocast("cpu", dtype=torch.bfloat16):
        reference_net(ref)
        pred = denoising_net(noisy)
        loss = F.mse_loss(pred.float(), target_noise) / GRAD_ACCUM
    scaler.scale(loss).backward(retain_graph=True)
    if sync_gradients:
        scaler.unscale_(optimizer)
        torch.nn.utils.clip_grad_norm_(params, 1.0)
        scaler.step(optimizer)
        scaler.update()
        optimizer.zero_grad()
        control.clear()
    print(f"micro-step {global_step} loss {loss.item() * GRAD_ACCUM:.4f} bank_size {len(control.bank)} sync {sync_gradients}")
