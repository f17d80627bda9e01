import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

N, D_IN, D_FEAT = 256, 20, 16
images = torch.randn(N, D_IN)


def augment(x):
    return x * (1 + 0.1 * torch.randn_like(x)) + 0.05 * torch.randn_like(x)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.backbone = nn.Sequential(nn.Linear(D_IN, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU())
        self.proj = nn.Linear(64, D_FEAT)

    def forward(self, x):
        return F.normalize(self.proj(self.backbone(x)), dim=1)


class MemoryBank:
    def __init__(self, n, d, momentum=0.5):
        self.bank = F.normalize(torch.randn(n, d), dim=1)
        self.momentum = momentum

    def update(self, idx, feats):
        mixed = self.momentum * self.bank[idx] + (1 - self.momentum) * feats
        self.bank[idx] = F.normalize(mixed, dim=1)


model = Encoder()
memory = MemoryBank(N, D_FEAT)
optimizer = torch.optim.SGD(model.parameters(), lr=0.03, momentum=0.9, weight_decay=5e-4)
temperature = 0.07

for epoch in range(5):
    perm = torch.randperm(N)
    for i in range(0, N, 32):
        idx = perm[i:i + 32]
        feats = model(augment(images[idx]))
        logits = feats @ memory.bank.t() / temperature
        loss = F.cross_entropy(logits, idx)
        optimizer.zero_grad()
        loss.backward(retain_graph=True)
        optimizer.step()
        memory.update(idx, feats)
    print(epoch, loss.item())
