# EvolveGCN-O: a GRU evolves the GCN weight matrix from snapshot to snapshot.
# Trained like the library example: one backward per epoch over all snapshots.
import torch
import torch.nn as nn

torch.manual_seed(0)
N, F_IN, T = 10, 4, 5


def normalize(adj):
    adj = adj + torch.eye(adj.shape[0])
    d = adj.sum(1)
    return adj / torch.sqrt(d[:, None] * d[None, :])


class EvolveGCNO(nn.Module):
    def __init__(self, in_channels):
        super().__init__()
        self.initial_weight = nn.Parameter(torch.empty(1, in_channels, in_channels))
        nn.init.xavier_uniform_(self.initial_weight)
        self.recurrent_layer = nn.GRU(input_size=in_channels, hidden_size=in_channels, num_layers=1)
        self.weight = None

    def reinitialize_weight(self):
        self.weight = None

    def forward(self, x, a_hat):
        if self.weight is None:
            _, self.weight = self.recurrent_layer(self.initial_weight, self.initial_weight)
        else:
            _, self.weight = self.recurrent_layer(self.weight, self.weight)
        out = a_hat @ x @ self.weight.squeeze(0)
        return out


class RecurrentGCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.recurrent = EvolveGCNO(F_IN)
        self.linear = nn.Linear(F_IN, 1)

    def forward(self, x, a_hat):
        return self.linear(torch.relu(self.recurrent(x, a_hat))).squeeze(-1)


train_dataset = []
for t in range(T):
    adj = normalize(((torch.rand(N, N) < 0.3).float() + (torch.rand(N, N) < 0.3).float().t() > 0).float())
    x = torch.randn(N, F_IN)
    train_dataset.append((x, adj, x.sum(1) * 0.5))

model = RecurrentGCN()
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)
for epoch in range(4):
    cost = 0
    model.recurrent.reinitialize_weight()
    for time, (x, a_hat, y) in enumerate(train_dataset):
        y_hat = model(x, a_hat)
        cost = cost + torch.mean((y_hat - y) ** 2)
    cost = cost / (time + 1)
    cost.backward()
    optimizer.step()
    optimizer.zero_grad()
    print(f"epoch {epoch} mse {cost.item():.4f}")
