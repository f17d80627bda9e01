"""vqtorch's VectorQuant with an in-place codebook optimizer and an
affine reparameterized codebook: the step inside the forward frees
the graph of the affine codebook that the layer goes on using.

Source: https://github.com/minyoungg/vqtorch/issues/3
The users trained a model with a VectorQuant layer built with
inplace_optimizer (the codebook updated by its own optimizer during
the forward) and affine_lr > 0 (the codebook used through learned
per-group scale and bias). The model's loss.backward() raised; they
found that retain_graph=True in vq.py's in-place backward (line 122)
"seems working fine".
Kept: VectorQuant.quantize as released (the affine codebook made
once, nearest codes under no_grad, the in-place codebook loss on
z.detach(), its backward, the codebook optimizer's step and
zero_grad, then "forward pass again with the update codebook" from
the same affine codebook), AffineTransform (scale 1 + lr_scale *
scale, bias lr_scale * bias), compute_loss with beta 1.0, the
straight-through estimate; changed: a linear encoder and decoder on
random vectors, 8 codes of size 4, one training step.
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

    def quantize(self, codebook, z):
        codebook = self.affine_transform(codebook)
        with torch.no_grad():
            q = torch.cdist(z, codebook).argmin(-1)
        z_q = F.embedding(q, codebook)
        if self.training:
            # update codebook inplace
            ((z_q - z.detach()) ** 2).mean().backward()
            self.inplace_codebook_optimizer.step()
            self.inplace_codebook_optimizer.zero_grad()
            # forward pass again with the update codebook
            z_q = F.embedding(q, codebook)
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
z_q, out = vq(encoder(x))
recon = F.mse_loss(decoder(z_q), x)
loss = recon + out["loss"]
print(f"codes used: {out['q'].unique().numel()} of {CODES}")
print(f"recon {recon.item():.4f}  commitment {out['loss'].item():.4f}")
optimizer.zero_grad()
loss.backward()
optimizer.step()
