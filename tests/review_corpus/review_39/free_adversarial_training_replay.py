import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

DIM, CLASSES, N, BATCH = 40, 5, 1024, 64
EPS, REPLAYS = 0.05, 4

centers = torch.randn(CLASSES, DIM)
Y = torch.randint(0, CLASSES, (N,))
X = centers[Y] + 0.6 * torch.randn(N, DIM)

model = nn.Sequential(
    nn.Linear(DIM, 128),
    nn.ReLU(),
    nn.Linear(128, 64),
    nn.ReLU(),
    nn.Linear(64, CLASSES),
)
opt = torch.optim.SGD(model.parameters(), lr=0.02, momentum=0.9)
delta = torch.zeros(BATCH, DIM)

for epoch in range(3):
    perm = torch.randperm(N)
    for i in range(0, N, BATCH):
        idx = perm[i : i + BATCH]
        x, y = X[idx], Y[idx]
        for _ in range(REPLAYS):
            delta.requires_grad_(True)
            loss = F.cross_entropy(model(x + delta), y)

            (delta_grad,) = torch.autograd.grad(loss, delta)

            opt.zero_grad()
            loss.backward()
            opt.step()

            delta = (delta + EPS * delta_grad.sign()).clamp(-EPS, EPS).detach()
    print(f"epoch {epoch}  loss {loss.item():.4f}")
