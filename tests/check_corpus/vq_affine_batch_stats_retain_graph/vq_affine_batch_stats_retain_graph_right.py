import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class AffineEMACodebook(nn.Module):
    """EMA codebook with affine re-parameterisation (batch / codebook statistics)."""

    def __init__(self, dim, codebook_size, decay=0.8, batch_decay=0.99, codebook_decay=0.9, temperature=1.0):
        super().__init__()
        self.decay = decay
        self.batch_decay = batch_decay
        self.codebook_decay = codebook_decay
        self.temperature = temperature
        self.register_buffer("embed", torch.randn(codebook_size, dim))
        self.register_buffer("embed_avg", self.embed.clone())
        self.register_buffer("cluster_size", torch.ones(codebook_size))
        self.register_buffer("batch_mean", None)
        self.register_buffer("batch_variance", None)
        self.register_buffer("codebook_mean", None)
        self.register_buffer("codebook_variance", None)

    def update_with_decay(self, buffer_name, new_value, decay):
        old_value = getattr(self, buffer_name)
        if old_value is None:
            self.register_buffer(buffer_name, new_value.detach())
            return
        value = old_value * decay + new_value.detach() * (1 - decay)
        self.register_buffer(buffer_name, value)

    def update_affine(self, data, embed):
        self.update_with_decay("codebook_mean", embed.mean(0, keepdim=True), self.codebook_decay)
        self.update_with_decay("codebook_variance", embed.var(0, unbiased=False, keepdim=True), self.codebook_decay)
        self.update_with_decay("batch_mean", data.mean(0, keepdim=True), self.batch_decay)
        self.update_with_decay("batch_variance", data.var(0, unbiased=False, keepdim=True), self.batch_decay)

    def forward(self, x):
        flatten = x.reshape(-1, x.shape[-1])
        if self.training:
            self.update_affine(flatten, self.embed)
        codebook_std = self.codebook_variance.clamp(min=1e-5).sqrt()
        batch_std = self.batch_variance.clamp(min=1e-5).sqrt()
        embed = (self.embed - self.codebook_mean) * (batch_std / codebook_std) + self.batch_mean

        dist = -torch.cdist(flatten, embed, p=2)
        probs = (dist / self.temperature).softmax(dim=-1)
        embed_ind = probs.argmax(dim=-1)
        onehot = F.one_hot(embed_ind, self.embed.shape[0]).type(flatten.dtype)
        chosen = probs.gather(-1, embed_ind.unsqueeze(-1))
        straight_through_mult = 1 + chosen - chosen.detach()
        quantize = self.embed[embed_ind] * straight_through_mult

        if self.training:
            with torch.no_grad():
                self.cluster_size.mul_(self.decay).add_(onehot.sum(0), alpha=1 - self.decay)
                embed_sum = onehot.t() @ flatten
                self.embed_avg.mul_(self.decay).add_(embed_sum, alpha=1 - self.decay)
                n = self.cluster_size.sum()
                cs = (self.cluster_size + 1e-5) / (n + self.embed.shape[0] * 1e-5) * n
                self.embed.copy_(self.embed_avg / cs.unsqueeze(1))
        return quantize.view_as(x), embed_ind


class VQAutoencoder(nn.Module):
    def __init__(self, in_dim=32, hidden=64, code_dim=8, codebook_size=16):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(in_dim, hidden), nn.ReLU(), nn.Linear(hidden, code_dim))
        self.vq = AffineEMACodebook(code_dim, codebook_size)
        self.decoder = nn.Sequential(nn.Linear(code_dim, hidden), nn.ReLU(), nn.Linear(hidden, in_dim))

    def forward(self, x):
        z = self.encoder(x)
        q, ind = self.vq(z)
        commit = F.mse_loss(z, q.detach())
        q = z + (q - z).detach() + (q - q.detach())
        return self.decoder(q), commit, ind


data = torch.randn(256, 32)
model = VQAutoencoder()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for step in range(6):
    x = data[torch.randint(0, 256, (32,))]
    recon, commit_loss, ind = model(x)
    loss = F.mse_loss(recon, x) + 0.25 * commit_loss
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step} loss {loss.item():.4f} codes used {ind.unique().numel()}")
