# written
import torch
import torch.nn as nn

torch.manual_seed(0)

N_USERS, N_ITEMS, EMB = 50, 40, 8
tasks = ["click", "purchase"]


class SharedTower(nn.Module):
    def __init__(self):
        super().__init__()
        self.user_emb = nn.Embedding(N_USERS, EMB)
        self.item_emb = nn.Embedding(N_ITEMS, EMB)
        self.mlp = nn.Sequential(
            nn.Linear(2 * EMB, 32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 16), nn.ReLU()
        )

    def forward(self, users, items):
        return self.mlp(torch.cat([self.user_emb(users), self.item_emb(items)], dim=1))


class TaskHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 1)

    def forward(self, rep):
        return self.fc(rep).squeeze(1)


def min_norm_two(g1, g2):
    v1v1, v1v2, v2v2 = (g1 * g1).sum(), (g1 * g2).sum(), (g2 * g2).sum()
    if v1v2 >= v1v1:
        return 0.999
    if v1v2 >= v2v2:
        return 0.001
    return ((v2v2 - v1v2) / (v1v1 + v2v2 - 2 * v1v2)).item()


model = {"rep": SharedTower(), "click": TaskHead(), "purchase": TaskHead()}
params = [p for m in model.values() for p in m.parameters()]
optimizer = torch.optim.Adam(params, lr=1e-2)
loss_fn = {t: nn.BCEWithLogitsLoss() for t in tasks}

user_taste, item_style = torch.randn(N_USERS, 4), torch.randn(N_ITEMS, 4)
batches = []
for _ in range(5):
    users = torch.randint(0, N_USERS, (64,))
    items = torch.randint(0, N_ITEMS, (64,))
    affinity = (user_taste[users] * item_style[items]).sum(1)
    click = (affinity > 0).float()
    purchase = (affinity < -1).float()
    batches.append((users, items, {"click": click, "purchase": purchase}))

for m in model.values():
    m.train()

for n_iter, (users, items, labels) in enumerate(batches):
    rep = model["rep"](users, items)
    loss_t, grads, scale = {}, {}, {}
    for t in tasks:
        optimizer.zero_grad()
        out_t = model[t](rep)
        loss_t[t] = loss_fn[t](out_t, labels[t])
        loss_t[t].backward()
        grads[t] = torch.cat([p.grad.flatten().clone() for p in model["rep"].parameters()])

    alpha = min_norm_two(grads["click"], grads["purchase"])
    scale = {"click": alpha, "purchase": 1.0 - alpha}

    optimizer.zero_grad()
    loss = sum(scale[t] * loss_t[t] for t in tasks)
    loss.backward()
    optimizer.step()
    print(
        f"iter {n_iter} scales {scale['click']:.3f}/{scale['purchase']:.3f} "
        f"click {loss_t['click'].item():.4f} purchase {loss_t['purchase'].item():.4f}"
    )
