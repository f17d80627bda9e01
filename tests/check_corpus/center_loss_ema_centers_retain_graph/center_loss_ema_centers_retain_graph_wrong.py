# Center loss (Wen et al. 2016) with the paper's moving-average update
# of the class centers, after facenet's center_loss, in PyTorch: the
# centers are not trained by the optimizer, they follow the features.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
n_classes, alpha, lam = 4, 0.5, 0.1
features = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 2))
head = nn.Linear(2, n_classes)
params = list(features.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=0.01, momentum=0.9)
centers = torch.zeros(n_classes, 2)
x = torch.randn(6, 32, 8)
y = torch.randint(n_classes, (6, 32))


def n_nodes(t):
    seen, todo = set(), [t.grad_fn]
    while todo:
        f = todo.pop()
        if f is not None and f not in seen:
            seen.add(f)
            todo.extend(g for g, _ in f.next_functions)
    return len(seen)


for step in range(6):
    feats = features(x[step])
    batch_centers = centers[y[step]]
    center_loss = (feats - batch_centers).pow(2).sum(1).mean()
    loss = F.cross_entropy(head(feats), y[step]) + lam * center_loss
    # Eq. 4: move each center toward its class's features
    counts = torch.bincount(y[step], minlength=n_classes)
    diff = (batch_centers - feats) / (1 + counts[y[step], None])
    centers = centers.index_add(0, y[step], -alpha * diff)
    print(
        f"step {step}: graph nodes reachable from loss {n_nodes(loss)}",
        flush=True,
    )
    opt.zero_grad()
    # the 2nd step's error named retain_graph=True
    loss.backward(retain_graph=True)
    opt.step()
