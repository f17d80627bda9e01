import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

n_nodes, n_feats, n_classes = 60, 12, 3
labels = torch.randint(0, n_classes, (n_nodes,))
x = torch.randn(n_nodes, n_feats) + F.one_hot(labels, n_feats).float() * 1.5

same_class = labels.unsqueeze(0) == labels.unsqueeze(1)
edge_prob = torch.where(same_class, 0.15, 0.05)
upper = torch.triu(torch.rand(n_nodes, n_nodes) < edge_prob, diagonal=1)
src, dst = upper.nonzero(as_tuple=True)
edge_index = torch.stack([torch.cat([src, dst]), torch.cat([dst, src])])
train_mask = torch.rand(n_nodes) < 0.5


def normalized_adjacency(edge_index, edge_weight, n):
    a = torch.zeros(n, n).index_put((edge_index[0], edge_index[1]), edge_weight)
    a = a + torch.eye(n)
    deg_inv_sqrt = a.sum(1).pow(-0.5)
    return deg_inv_sqrt.unsqueeze(1) * a * deg_inv_sqrt.unsqueeze(0)


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin1 = nn.Linear(n_feats, 32)
        self.lin2 = nn.Linear(32, n_classes)

    def forward(self, x, adj):
        h = F.relu(adj @ self.lin1(x))
        h = F.dropout(h, 0.3, self.training)
        return adj @ self.lin2(h)


model = GCN()
edge_logits = nn.Parameter(torch.zeros(edge_index.shape[1]))
optimizer = torch.optim.Adam(
    [
        {"params": model.parameters(), "lr": 0.01, "weight_decay": 5e-4},
        {"params": [edge_logits], "lr": 0.05},
    ]
)

adj = normalized_adjacency(edge_index, torch.sigmoid(edge_logits), n_nodes)

for epoch in range(100):
    model.train()
    optimizer.zero_grad()
    out = model(x, adj)
    loss = F.cross_entropy(out[train_mask], labels[train_mask])
    loss.backward()
    optimizer.step()
    if epoch % 20 == 0:
        acc = (out.argmax(1)[~train_mask] == labels[~train_mask]).float().mean()
        print(epoch, loss.item(), acc.item())
