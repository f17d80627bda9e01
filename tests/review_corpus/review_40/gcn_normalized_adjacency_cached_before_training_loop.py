# written (realistic): GCN node classification with LEARNABLE edge weights.
# The normalized adjacency D^-1/2 (A*w + I) D^-1/2 is built once before the loop
# "to save time" -- but it depends on the learnable edge weights, so it carries
# the first epoch's graph. Both the GCN weights and edge_logit must train.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
N, Fin, C = 30, 8, 3
X = torch.randn(N, Fin)
y = torch.randint(0, C, (N,))
adj = (torch.rand(N, N) < 0.15).float()
adj = ((adj + adj.t()) > 0).float().fill_diagonal_(0)
edge_logit = nn.Parameter(torch.zeros(N, N))  # learnable edge weights


def normalized_adjacency():
    A = adj * torch.sigmoid(edge_logit) + torch.eye(N)
    d = A.sum(1).pow(-0.5)
    return d[:, None] * A * d[None, :]


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.l1, self.l2 = nn.Linear(Fin, 16), nn.Linear(16, C)

    def forward(self, x, a_hat):
        return self.l2(a_hat @ F.relu(self.l1(a_hat @ x)))


model = GCN()
opt = torch.optim.Adam(list(model.parameters()) + [edge_logit], lr=1e-2)
A_hat = normalized_adjacency()  # cached once

for epoch in range(5):
    opt.zero_grad()
    loss = F.cross_entropy(model(X, A_hat), y)
    loss.backward()  # epoch 1: RuntimeError
    opt.step()
    print(epoch, loss.item())
