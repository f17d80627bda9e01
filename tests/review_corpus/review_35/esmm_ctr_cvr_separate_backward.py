import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

N_USERS, N_ITEMS, D = 500, 300, 16


class ESMM(nn.Module):
    """Entire-space multi-task model: pCTCVR = pCTR * pCVR, shared embeddings."""

    def __init__(self):
        super().__init__()
        self.user_emb = nn.Embedding(N_USERS, D)
        self.item_emb = nn.Embedding(N_ITEMS, D)
        self.ctr_tower = nn.Sequential(nn.Linear(2 * D, 64), nn.ReLU(), nn.Linear(64, 1))
        self.cvr_tower = nn.Sequential(nn.Linear(2 * D, 64), nn.ReLU(), nn.Linear(64, 1))

    def forward(self, users, items):
        h = torch.cat([self.user_emb(users), self.item_emb(items)], dim=-1)
        p_ctr = torch.sigmoid(self.ctr_tower(h)).squeeze(-1)
        p_cvr = torch.sigmoid(self.cvr_tower(h)).squeeze(-1)
        return p_ctr, p_cvr, p_ctr * p_cvr


# synthetic impression log
n = 4096
users = torch.randint(0, N_USERS, (n,))
items = torch.randint(0, N_ITEMS, (n,))
click = (torch.rand(n) < 0.3).float()
conversion = click * (torch.rand(n) < 0.2).float()

model = ESMM()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)

for step in range(5):
    idx = torch.randint(0, n, (256,))
    p_ctr, p_cvr, p_ctcvr = model(users[idx], items[idx])
    loss_ctr = F.binary_cross_entropy(p_ctr, click[idx])
    loss_ctcvr = F.binary_cross_entropy(p_ctcvr, conversion[idx])
    optimizer.zero_grad()
    loss_ctr.backward()
    loss_ctcvr.backward()
    optimizer.step()
    print(f"step {step} ctr {loss_ctr.item():.4f} ctcvr {loss_ctcvr.item():.4f}")
