# https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/305
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class EvolveGCNO(nn.Module):
    def __init__(self, in_channels):
        super().__init__()
        self.initial_weight = nn.Parameter(torch.empty(1, in_channels, in_channels))
        nn.init.xavier_uniform_(self.initial_weight)
        self.recurrent_layer = nn.GRU(input_size=in_channels, hidden_size=in_channels, num_layers=1)
        self.weight = None

    def forward(self, X, A_hat):
        if self.weight is None:
            _, self.weight = self.recurrent_layer(self.initial_weight, self.initial_weight)
        else:
            _, self.weight = self.recurrent_layer(self.weight, self.weight)
        return A_hat @ X @ self.weight.squeeze(0)


class RecurrentGCN(nn.Module):
    def __init__(self, node_features):
        super().__init__()
        self.recurrent = EvolveGCNO(node_features)
        self.linear = nn.Linear(node_features, 1)

    def forward(self, x, A_hat):
        return self.linear(F.relu(self.recurrent(x, A_hat)))


N, Fdim, T = 12, 4, 8
A = (torch.rand(N, N) < 0.3).float()
A = ((A + A.t() + torch.eye(N)) > 0).float()
A_hat = A / A.sum(1, keepdim=True).sqrt() / A.sum(0, keepdim=True).sqrt()
snapshots = [(torch.randn(N, Fdim), None) for _ in range(T)]
snapshots = [(x, (A_hat @ x).sum(1, keepdim=True) * (1 + 0.1 * t)) for t, (x, _) in enumerate(snapshots)]

model = RecurrentGCN(node_features=Fdim)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
gru_params = list(model.recurrent.recurrent_layer.parameters())


def full_bptt_grad():
    W, cost = model.recurrent.initial_weight, 0
    for x, y in snapshots:
        _, W = model.recurrent.recurrent_layer(W, W)
        cost = cost + torch.mean((model.linear(F.relu(A_hat @ x @ W.squeeze(0))) - y) ** 2)
    return torch.cat([g.flatten() for g in torch.autograd.grad(cost / T, gru_params)])


model.train()
for epoch in range(8):
    cost = 0
    model.recurrent.weight = None
    for time, (x, y) in enumerate(snapshots):
        y_hat = model(x, A_hat)
        cost = cost + torch.mean((y_hat - y) ** 2)
    cost = cost / (time + 1)
    cost.backward()
    g0 = model.recurrent.initial_weight.grad
    used = torch.cat([p.grad.flatten() for p in gru_params])
    ref = full_bptt_grad()
    print(f"epoch {epoch}: cost {cost.item():.4f}, initial_weight grad norm "
          f"{0.0 if g0 is None else g0.norm().item():.4f}, rel diff |GRU grad used - full BPTT grad| "
          f"{((used - ref).norm() / ref.norm()).item():.3f}")
    optimizer.step()
    optimizer.zero_grad()
