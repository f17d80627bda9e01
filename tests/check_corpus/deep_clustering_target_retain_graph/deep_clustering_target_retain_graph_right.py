# written
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

N, D, Z, K, BATCH = 120, 10, 4, 3, 30


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(D, 16), nn.ReLU(), nn.Linear(16, Z))

    def forward(self, x):
        return self.net(x)


class ClusteringLayer(nn.Module):
    def __init__(self, alpha=1.0):
        super().__init__()
        self.alpha = alpha
        self.cluster_centers = nn.Parameter(torch.randn(K, Z))

    def forward(self, z):
        dist = ((z.unsqueeze(1) - self.cluster_centers) ** 2).sum(2)
        q = (1.0 + dist / self.alpha) ** (-(self.alpha + 1) / 2)
        return q / q.sum(1, keepdim=True)


def target_distribution(q):
    weight = q ** 2 / q.sum(0)
    return (weight.t() / weight.sum(1)).t()


centers_true = torch.randn(K, D) * 3
data = centers_true[torch.randint(0, K, (N,))] + torch.randn(N, D)

encoder, cluster = Encoder(), ClusteringLayer()
optimizer = torch.optim.SGD(list(encoder.parameters()) + list(cluster.parameters()), lr=0.05, momentum=0.9)

for epoch in range(3):
    q_all = cluster(encoder(data))
    p_all = target_distribution(q_all).detach()

    perm = torch.randperm(N)
    for start in range(0, N, BATCH):
        idx = perm[start:start + BATCH]
        q = cluster(encoder(data[idx]))
        loss = F.kl_div(q.log(), p_all[idx], reduction="batchmean")
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    print(f"epoch {epoch} kl {loss.item():.5f}")
