import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

DIM, CLASSES, N = 30, 4, 2048
EPS = 0.1

w_true = torch.randn(DIM, CLASSES)
X = torch.randn(N, DIM)
Y = (X @ w_true).argmax(1)

model = nn.Sequential(nn.Linear(DIM, 128), nn.ReLU(), nn.Linear(128, CLASSES))
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

for epoch in range(5):
    perm = torch.randperm(N)
    for i in range(0, N, 128):
        idx = perm[i : i + 128]
        x = X[idx].clone().requires_grad_(True)
        y = Y[idx]

        clean_loss = F.cross_entropy(model(x), y)
        (x_grad,) = torch.autograd.grad(clean_loss, x)
        x_adv = (x + EPS * x_grad.sign()).detach()

        adv_loss = F.cross_entropy(model(x_adv), y)
        loss = 0.5 * clean_loss + 0.5 * adv_loss

        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch}  clean {clean_loss.item():.4f}  adv {adv_loss.item():.4f}")
