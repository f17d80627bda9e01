import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

DIM, CLASSES, N_TRAIN, N_VAL, BATCH = 16, 4, 2048, 256, 64
NOISE_RATE = 0.4

w_true = torch.randn(DIM, CLASSES)
X_train = torch.randn(N_TRAIN, DIM)
Y_train = (X_train @ w_true).argmax(1)
flip = torch.rand(N_TRAIN) < NOISE_RATE
Y_train[flip] = torch.randint(0, CLASSES, (int(flip.sum()),))
X_val = torch.randn(N_VAL, DIM)
Y_val = (X_val @ w_true).argmax(1)

model = nn.Sequential(nn.Linear(DIM, 64), nn.ReLU(), nn.Linear(64, CLASSES))
params = list(model.parameters())
opt = torch.optim.SGD(params, lr=0.1, momentum=0.9)


def flat(grads):
    return torch.cat([g.reshape(-1) for g in grads])


for epoch in range(3):
    perm = torch.randperm(N_TRAIN)
    kept = 0.0
    for i in range(0, N_TRAIN, BATCH):
        idx = perm[i : i + BATCH]
        train_loss = F.cross_entropy(model(X_train[idx]), Y_train[idx])
        g_train = torch.autograd.grad(train_loss, params)

        vidx = torch.randint(0, N_VAL, (BATCH,))
        val_loss = F.cross_entropy(model(X_val[vidx]), Y_val[vidx])
        g_val = torch.autograd.grad(val_loss, params)

        weight = F.cosine_similarity(flat(g_train), flat(g_val), dim=0).clamp(min=0.0)
        kept += weight.item()

        opt.zero_grad()
        (weight * train_loss).backward()
        opt.step()
    print(
        f"epoch {epoch}  train {train_loss.item():.4f}  val {val_loss.item():.4f}  mean weight {kept / (N_TRAIN // BATCH):.3f}"
    )
