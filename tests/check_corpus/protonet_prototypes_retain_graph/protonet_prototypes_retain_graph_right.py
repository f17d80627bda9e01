# written
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

N_WAY, K_SHOT, N_QUERY, DIM = 5, 3, 12, 20
QUERY_CHUNKS = 3


class ProtoEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(DIM, 64), nn.ReLU(), nn.Linear(64, 32))

    def forward(self, x):
        return self.net(x)


def sample_episode(class_means):
    classes = torch.randperm(class_means.size(0))[:N_WAY]
    support = class_means[classes].unsqueeze(1) + 0.5 * torch.randn(N_WAY, K_SHOT, DIM)
    query = class_means[classes].unsqueeze(1) + 0.5 * torch.randn(N_WAY, N_QUERY, DIM)
    query_labels = torch.arange(N_WAY).unsqueeze(1).expand(N_WAY, N_QUERY)
    return support, query.reshape(-1, DIM), query_labels.reshape(-1)


def compute_prototypes(encoder, support):
    return encoder(support.reshape(-1, DIM)).view(N_WAY, K_SHOT, -1).mean(1)


def proto_logits(encoder, prototypes, query):
    return -torch.cdist(encoder(query), prototypes) ** 2


class_means = torch.randn(20, DIM)
encoder = ProtoEncoder()
optimizer = torch.optim.Adam(encoder.parameters(), lr=1e-3)

for episode in range(4):
    support, query, labels = sample_episode(class_means)
    perm = torch.randperm(query.size(0))
    for chunk in perm.chunk(QUERY_CHUNKS):
        prototypes = compute_prototypes(encoder, support)
        logits = proto_logits(encoder, prototypes, query[chunk])
        loss = F.cross_entropy(logits, labels[chunk])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    acc = (logits.argmax(1) == labels[chunk]).float().mean().item()
    print(f"episode {episode} loss {loss.item():.4f} acc {acc:.2f}")
