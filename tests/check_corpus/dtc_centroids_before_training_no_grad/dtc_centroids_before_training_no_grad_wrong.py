# Deep temporal clustering: an autoencoder trained on reconstruction
# plus a loss pulling each embedding's soft assignment Q (Student's t
# to the centroids) towards a sharpened target P. The centroids, the
# k-means cluster means of the embeddings, were computed once before
# training; the 2nd step raised the backward-twice error, and an
# answer said to compute them under torch.no_grad().
import torch
from torch import nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 2))
decoder = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 8))
optimizer = torch.optim.Adam(
    [*encoder.parameters(), *decoder.parameters()], lr=2e-2)
centers = torch.randn(3, 8) * 2
x = (centers[:, None] + torch.randn(3, 32, 8)).flatten(0, 1)


def cluster_means(z, iters=5):
    with torch.no_grad():  # k-means assignments: integers
        c = z[[0, 32, 64]]
        for _ in range(iters):
            labels = torch.cdist(z, c).argmin(1)
            c = torch.stack([z[labels == j].mean(0) for j in range(3)])
    return torch.stack([z[labels == j].mean(0) for j in range(3)])


def soft_assign(z, centroids):
    q = 1 / (1 + torch.cdist(z, centroids) ** 2)
    return q / q.sum(1, keepdim=True)


with torch.no_grad():
    centroids = cluster_means(encoder(x))
for step in range(8):
    z = encoder(x)
    q = soft_assign(z, centroids)
    p = q**2 / q.sum(0)
    p = (p / p.sum(1, keepdim=True)).detach()  # DEC's fixed target
    kl = nn.functional.kl_div(q.log(), p, reduction="batchmean")
    loss = nn.functional.mse_loss(decoder(z), x) + 0.5 * kl
    with torch.no_grad():
        fresh = cluster_means(z)
        rel = ((centroids - fresh).norm() / fresh.norm()).item()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}, centroids used vs "
          f"current embeddings' (relative) {rel:.3f}")
