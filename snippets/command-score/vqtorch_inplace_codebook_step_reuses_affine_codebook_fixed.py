"""vqtorch's VectorQuant with an in-place codebook optimizer and an
affine reparameterized codebook, the affine codebook made again from
the stepped codebook after the in-place step.

Source: https://github.com/minyoungg/vqtorch/issues/3
The in-place step changes the codebook's weights under the affine
codebook made before it, and its backward frees that codebook's
graph; quantize's comment says the second embedding should use the
updated codebook. Made again from self.codebook.weight after the
step, the second embedding reads the stepped codes through the
current scale and bias with a graph of its own. retain_graph=True in
the in-place backward instead keeps a graph whose saved codebook the
step has since changed: the model's backward then fails on the
modified codebook.
"""

import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
BATCH, DIM, CODES = 16, 4, 8


class AffineTransform(nn.Module):
    def __init__(self, feature_size, lr_scale=1.0):
        super().__init__()
        self.scale = nn.Parameter(torch.zeros(1, feature_size))
        self.bias = nn.Parameter(torch.zeros(1, feature_size))
        self.lr_scale = lr_scale

    def forward(self, codebook):
        scale = 1.0 + self.lr_scale * self.scale
        bias = self.lr_scale * self.bias
        return scale * codebook + bias


class VectorQuant(nn.Module):
    def __init__(self, feature_size, num_codes, affine_lr=10.0):
        super().__init__()
        self.beta = 1.0  # inplace_optimizer needs beta=1.0
        self.codebook = nn.Embedding(num_codes, feature_size)
        self.inplace_codebook_optimizer = torch.optim.SGD(
            self.codebook.parameters(), lr=50.0
        )
        self.affine_transform = AffineTransform(
            feature_size, lr_scale=affine_lr
        )

    def compute_loss(self, z_e, z_q):
        return (1.0 - self.beta) * F.mse_loss(
            z_e, z_q.detach()
        ) + self.beta * F.mse_loss(z_e.detach(), z_q)

    def quantize(self, weight, z):
        codebook = self.affine_transform(weight)
        with torch.no_grad():
            q = torch.cdist(z, codebook).argmin(-1)
        z_q = F.embedding(q, codebook)
        if self.training:
            # update codebook inplace
            ((z_q - z.detach()) ** 2).mean().backward()
            self.inplace_codebook_optimizer.step()
            self.inplace_codebook_optimizer.zero_grad()
            # forward pass again with the update codebook,
            # the affine codebook made again from the stepped weights
            z_q = F.embedding(q, self.affine_transform(weight))
        return z_q, q

    def forward(self, z):
        z_q, q = self.quantize(self.codebook.weight, z)
        loss = self.compute_loss(z, z_q)
        z_q = z + (z_q - z).detach()  # straight-through
        return z_q, {"q": q, "loss": loss}


encoder = nn.Linear(6, DIM)
vq = VectorQuant(DIM, CODES)
decoder = nn.Linear(DIM, 6)
model_params = [
    *encoder.parameters(),
    *decoder.parameters(),
    *vq.affine_transform.parameters(),
]
optimizer = torch.optim.Adam(model_params, lr=1e-3)

x = torch.randn(BATCH, 6)
before = vq.codebook.weight.detach().clone()
z_q, out = vq(encoder(x))
recon = F.mse_loss(decoder(z_q), x)
loss = recon + out["loss"]
print(f"codes used: {out['q'].unique().numel()} of {CODES}")
print(f"recon {recon.item():.4f}  commitment {out['loss'].item():.4f}")
optimizer.zero_grad()
loss.backward()
moved = (vq.codebook.weight - before).abs().max().item()
print(f"codebook moved by the in-place step: {moved:.4f}")

# reference: a fresh forward from the stepped codebook, same codes
grads = {n: p.grad.clone() for n, p in vq.named_parameters()}
aff = vq.affine_transform
for p in aff.parameters():
    p.grad = None
z = encoder(x).detach()
ref_q = F.embedding(out["q"], aff(vq.codebook.weight.detach()))
F.mse_loss(z, ref_q).backward()
for name in ("scale", "bias"):
    got = grads[f"affine_transform.{name}"]
    ref = getattr(aff, name).grad
    print(
        f"affine {name}: |grad| {got.norm().item():.4f}, "
        f"matches fresh forward: {torch.allclose(got, ref)}"
    )
for mod_name, mod in (("encoder", encoder), ("decoder", decoder)):
    norm = mod.weight.grad.norm().item()
    print(f"{mod_name}.weight |grad| {norm:.4f} (nonzero: {norm > 0})")
optimizer.step()
