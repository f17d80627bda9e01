import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

DIM, CLASSES, N, BATCH = 20, 3, 1536, 96
RHO = 0.05

w_true = torch.randn(DIM, CLASSES)
X = torch.randn(N, DIM)
Y = (X @ w_true + 0.5 * torch.randn(N, CLASSES)).argmax(1)

model = nn.Sequential(
    nn.Linear(DIM, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, CLASSES)
)
params = [p for p in model.parameters() if p.requires_grad]
base_opt = torch.optim.SGD(params, lr=0.05, momentum=0.9, weight_decay=5e-4)


def sam_step(x, y):
    outputs = model(x)

    def closure():
        return F.cross_entropy(outputs, y)

    loss = closure()
    grads = torch.autograd.grad(loss, params)
    grad_norm = torch.norm(torch.stack([g.norm(2) for g in grads]), 2)
    scale = RHO / (grad_norm + 1e-12)

    eps = []
    with torch.no_grad():
        for p, g in zip(params, grads):
            e = g * scale
            p.add_(e)
            eps.append(e)

    base_opt.zero_grad()
    sharp_loss = closure()
    sharp_loss.backward()

    with torch.no_grad():
        for p, e in zip(params, eps):
            p.sub_(e)
    base_opt.step()
    return loss.item(), sharp_loss.item()


for epoch in range(4):
    perm = torch.randperm(N)
    for i in range(0, N, BATCH):
        idx = perm[i : i + BATCH]
        loss, sharp = sam_step(X[idx], Y[idx])
    print(f"epoch {epoch}  loss {loss:.4f}  sharp loss {sharp:.4f}")
