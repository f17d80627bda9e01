# https://github.com/benedekrozemberczki/pytorch_geometric_temporal/issues/305
# EvolveGCNO and the library's example loop, in plain torch (a dense
# normalised adjacency stands in for PyG's GCNConv message passing).
import torch
from torch import nn


class EvolveGCNO(nn.Module):
    def __init__(self, in_channels):
        super().__init__()
        self.initial_weight = nn.Parameter(
            torch.empty(1, in_channels, in_channels)
        )
        nn.init.xavier_uniform_(self.initial_weight)
        self.weight = None
        self.recurrent_layer = nn.GRU(in_channels, in_channels)

    def reinitialize_weight(self):
        self.weight = None

    def forward(self, X, A_hat):
        if self.weight is None:
            _, self.weight = self.recurrent_layer(
                self.initial_weight, self.initial_weight
            )
        else:
            _, self.weight = self.recurrent_layer(
                self.weight, self.weight
            )
        return A_hat @ X @ self.weight.squeeze(dim=0)


class RecurrentGCN(nn.Module):
    def __init__(self, node_features):
        super().__init__()
        self.recurrent = EvolveGCNO(node_features)
        self.linear = nn.Linear(node_features, 1)

    def forward(self, x, A_hat):
        h = self.recurrent(x, A_hat)
        return self.linear(torch.relu(h))


torch.manual_seed(0)
A = torch.eye(5) + torch.eye(5).roll(1, 0) + torch.eye(5).roll(-1, 0)
A_hat = A / A.sum(1, keepdim=True)
snapshots = [(torch.randn(5, 4), torch.randn(5, 1)) for _ in range(3)]
model = RecurrentGCN(node_features=4)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

for epoch in range(3):
    cost = 0
    for time, (x, y) in enumerate(snapshots):
        y_hat = model(x, A_hat)
        cost = cost + torch.mean((y_hat - y) ** 2)
    cost = cost / (time + 1)
    cost.backward()
    w0_grad = model.recurrent.initial_weight.grad
    optimizer.step()
    optimizer.zero_grad()
    # The library's own fix (commit 987e43e, "Fixes #305"): cut the
    # graph of the evolved weight between epochs.
    model.recurrent.weight = model.recurrent.weight.detach()
    print(
        f"epoch {epoch}: cost {cost.item():.4f}, "
        f"initial_weight.grad is None: {w0_grad is None}"
    )
