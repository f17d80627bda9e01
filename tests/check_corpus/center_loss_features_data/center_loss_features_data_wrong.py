# Softmax + center loss: the backbone features should be pulled toward their class centers.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
D, FEAT, CLS, B = 20, 8, 4, 32
backbone = nn.Sequential(nn.Linear(D, 32), nn.ReLU(), nn.Linear(32, FEAT))
head = nn.Linear(FEAT, CLS)
centers = nn.Parameter(torch.randn(CLS, FEAT))
optimizer = torch.optim.SGD(list(backbone.parameters()) + list(head.parameters()), lr=0.05)
optimizer_center = torch.optim.SGD([centers], lr=0.5)
LAMBDA = 0.1


def center_criterion(feats, labels):
    return ((feats - centers[labels]) ** 2).sum(1).mean() / 2


protos = torch.randn(CLS, D) * 2
labels_all = torch.randint(0, CLS, (256,))
inputs_all = protos[labels_all] + torch.randn(256, D)

for step in range(8):
    idx = torch.randint(0, 256, (B,))
    x, labels = inputs_all[idx], labels_all[idx]
    feats = backbone(x)
    ce_loss = F.cross_entropy(head(feats), labels)
    optimizer.zero_grad()
    optimizer_center.zero_grad()
    ce_loss.backward()
    center_loss = LAMBDA * center_criterion(feats.data, labels)
    center_loss.backward()
    optimizer.step()
    optimizer_center.step()
    print(f"step {step} ce {ce_loss.item():.4f} center {center_loss.item():.4f}")
