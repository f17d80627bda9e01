# source: https://github.com/lucidrains/vector-quantize-pytorch/commit/3c86917339b2679e99f460368239cd93e311a04a
# Reduced from VectorQuantize with learnable_codebook + in_place_codebook_optimizer.
# The author intended: inside forward, the codebook alone takes one in-place
# optimizer step on its own loss ||quantize - x||^2 (codebook parameters only),
# then the input is quantized again; the autoencoder's optimizer trains the
# encoder/decoder on reconstruction + commitment loss (straight-through).
import torch
import torch.nn as nn
import torch.nn.functional as F


class EuclideanCodebook(nn.Module):
    def __init__(self, dim, codebook_size):
        super().__init__()
        self.embed = nn.Parameter(torch.randn(codebook_size, dim) * 0.3)

    def forward(self, x):
        flatten = x.reshape(-1, x.shape[-1])
        dist = -(
            flatten.pow(2).sum(1, keepdim=True)
            - 2 * flatten @ self.embed.t()
            + self.embed.pow(2).sum(1)[None]
        )
        embed_ind = dist.argmax(dim=-1)
        quantize = F.embedding(embed_ind, self.embed).view_as(x)
        return quantize, embed_ind.view(x.shape[:-1])


class VectorQuantize(nn.Module):
    def __init__(
        self, dim, codebook_size, commitment_weight=0.25, in_place_codebook_optimizer=None
    ):
        super().__init__()
        self._codebook = EuclideanCodebook(dim, codebook_size)
        self.commitment_weight = commitment_weight
        if in_place_codebook_optimizer is not None:
            self.in_place_codebook_optimizer = in_place_codebook_optimizer(
                self._codebook.parameters()
            )

    def forward(self, x):
        should_inplace_optimize = hasattr(self, "in_place_codebook_optimizer")
        quantize, embed_ind = self._codebook(x)

        if should_inplace_optimize and self.training:
            # one in-place step of the codebook
            ((quantize - x) ** 2).mean().backward()
            self.in_place_codebook_optimizer.step()
            self.in_place_codebook_optimizer.zero_grad()
            # quantize again with the updated codebook
            quantize, embed_ind = self._codebook(x)

        loss = torch.zeros((), device=x.device)
        if self.training:
            quantize = x + (quantize - x).detach()
            loss = loss + F.mse_loss(quantize.detach(), x) * self.commitment_weight
        return quantize, embed_ind, loss


class VQAutoencoder(nn.Module):
    def __init__(self, in_dim=16, dim=8, codebook_size=32):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, 32), nn.ReLU(), nn.Linear(32, dim))
        self.vq = VectorQuantize(
            dim, codebook_size, in_place_codebook_optimizer=lambda p: torch.optim.SGD(p, lr=0.5)
        )
        self.decoder = nn.Sequential(nn.Linear(dim, 32), nn.ReLU(), nn.Linear(32, in_dim))

    def forward(self, x):
        z = self.encoder(x)
        zq, codes, commit_loss = self.vq(z)
        return self.decoder(zq), codes, commit_loss


def autoencoder_parameters(model):
    # the codebook is trained by its own in-place optimizer only
    return list(model.encoder.parameters()) + list(model.decoder.parameters())


def main():
    torch.manual_seed(0)
    centers = torch.randn(6, 16) * 2
    model = VQAutoencoder()
    opt = torch.optim.Adam(autoencoder_parameters(model), lr=3e-3)
    for step in range(8):
        idx = torch.randint(0, 6, (64,))
        x = centers[idx] + 0.1 * torch.randn(64, 16)
        opt.zero_grad()
        recon, codes, commit_loss = model(x)
        rec_loss = F.mse_loss(recon, x)
        loss = rec_loss + commit_loss
        loss.backward()
        opt.step()
        print(
            f"step {step} rec {rec_loss.item():.4f} commit {commit_loss.item():.4f} "
            f"codes used {codes.unique().numel()}"
        )


if __name__ == "__main__":
    main()
