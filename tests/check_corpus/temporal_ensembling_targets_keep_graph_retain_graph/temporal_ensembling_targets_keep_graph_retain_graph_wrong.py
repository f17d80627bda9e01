# Temporal ensembling (Laine & Aila 2017) for semi-supervised learning:
# each sample's target is a moving average of the network's predictions
# over past epochs, and an MSE pulls today's prediction toward it.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
N, B, C, alpha = 48, 16, 3, 0.6
net = nn.Sequential(nn.Linear(5, 32), nn.ReLU(), nn.Linear(32, C))
opt = torch.optim.SGD(net.parameters(), lr=0.1, momentum=0.9)
x = torch.randn(N, 5)
y = (x[:, 0] > 0).long() + (x[:, 1] > 0.5).long()
labeled = torch.arange(N) % 4 == 0
Z = torch.zeros(N, C)
targets = torch.zeros(N, C)


def n_nodes(t):
    seen, todo = set(), [t.grad_fn]
    while todo:
        f = todo.pop()
        if f is not None and f not in seen:
            seen.add(f)
            todo.extend(g for g, _ in f.next_functions)
    return len(seen)


for epoch in range(3):
    w = 0.0 if epoch == 0 else 1.0  # the ramp-up of the MSE weight
    outputs = torch.zeros(N, C)
    for i in range(0, N, B):
        idx = torch.arange(i, i + B)
        p = F.softmax(net(x[idx]), dim=1)
        sup = F.nll_loss(p[labeled[idx]].log(), y[idx][labeled[idx]])
        loss = sup + w * F.mse_loss(p, targets[idx])
        print(
            f"epoch {epoch} batch {i // B}: loss {loss.item():.4f}; "
            f"nodes reachable {n_nodes(loss)}",
            flush=True,
        )
        opt.zero_grad()
        # the 2nd epoch's backward reached the 1st epoch's batches;
        # the error asked for retain_graph=True
        loss.backward(retain_graph=True)
        opt.step()
        outputs = outputs.index_copy(0, idx, p)
    Z = alpha * Z + (1 - alpha) * outputs
    targets = Z / (1 - alpha ** (epoch + 1))
