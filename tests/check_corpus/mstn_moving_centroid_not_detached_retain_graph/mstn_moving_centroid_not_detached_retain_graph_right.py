# Reduced from MSTN domain adaptation with moving semantic centroids
# (github.com/EasonApolo/mstn/issues/4): the updated centroids are stored for the next
# step. Right fix: store detached centroids (as the maintainer answers).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
K, Din, Hd, B, decay = 3, 10, 16, 24, 0.3
feat = nn.Sequential(nn.Linear(Din, Hd), nn.ReLU())
clf = nn.Linear(Hd, K)
opt = torch.optim.SGD([*feat.parameters(), *clf.parameters()], lr=0.05)
means = torch.randn(K, Din) * 2
ys_all = torch.randint(0, K, (40, B))
xs_all = means[ys_all] + torch.randn(40, B, Din)
xt_all = means[torch.randint(0, K, (40, B))] + 0.5 + torch.randn(40, B, Din)

def centroids(f, labels):
    onehot = F.one_hot(labels, K).float()
    return (onehot.t() @ f) / (onehot.sum(0)[:, None] + 1e-6)

s_centroid = torch.zeros(K, Hd)
t_centroid = torch.zeros(K, Hd)
for xs, ys, xt in zip(xs_all, ys_all, xt_all):
    opt.zero_grad()
    fs, ft = feat(xs), feat(xt)
    cls_loss = F.cross_entropy(clf(fs), ys)
    yt = clf(ft).argmax(1)
    s_centroid = (1 - decay) * s_centroid + decay * centroids(fs, ys)
    t_centroid = (1 - decay) * t_centroid + decay * centroids(ft, yt)
    semantic_loss = F.mse_loss(s_centroid, t_centroid)
    loss = cls_loss + 0.5 * semantic_loss
    loss.backward()
    opt.step()
    s_centroid, t_centroid = s_centroid.detach(), t_centroid.detach()
print(f"final loss {loss.item():.4f}")
