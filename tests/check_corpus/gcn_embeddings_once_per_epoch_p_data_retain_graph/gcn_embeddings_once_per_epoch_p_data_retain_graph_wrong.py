# GCN link prediction: node embeddings computed once per epoch on the
# full graph, edge mini-batches trained against them with a hand-
# written SGD update; the second batch's error was silenced with
# retain_graph=True.
import torch
from torch import nn

torch.manual_seed(0)
n_nodes, n_feats, lr = 30, 8, 0.5
adj = (torch.rand(n_nodes, n_nodes) < 0.15).float()
adj = ((adj + adj.T) > 0).float() + torch.eye(n_nodes)
adj = adj / adj.sum(1, keepdim=True)
feats = torch.randn(n_nodes, n_feats)


class GCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin1 = nn.Linear(n_feats, 16)
        self.lin2 = nn.Linear(16, 8)

    def forward(self, a, x):
        return self.lin2(a @ torch.relu(self.lin1(a @ x)))


model = GCN()
params = list(model.parameters())
edges = torch.randint(n_nodes, (3, 4, 2, 16))  # epochs, batches
labels = torch.randint(0, 2, (3, 4, 16)).float()


def edge_loss(z, e, t):
    score = (z[e[0]] * z[e[1]]).sum(-1)
    return nn.functional.binary_cross_entropy_with_logits(score, t)


def fresh_grad(e, t):
    loss = edge_loss(model(adj, feats), e, t)
    return torch.autograd.grad(loss, params)


for epoch in range(3):
    z = model(adj, feats)
    rels = []
    for b in range(4):
        loss = edge_loss(z, edges[epoch, b], labels[epoch, b])
        want = fresh_grad(edges[epoch, b], labels[epoch, b])
        model.zero_grad()
        loss.backward(retain_graph=True)
        used = torch.cat([p.grad.flatten() for p in params])
        ref = torch.cat([g.flatten() for g in want])
        rels.append(((used - ref).norm() / ref.norm()).item())
        for p in params:
            p.data.add_(p.grad, alpha=-lr)
    print(f"epoch {epoch}: grad vs a fresh forward's grad (relative) "
          + ", ".join(f"{r:.3f}" for r in rels))
