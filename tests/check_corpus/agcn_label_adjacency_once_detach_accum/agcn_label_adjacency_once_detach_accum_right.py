# A-GCN multi-label classifier: the label graph's adjacency is made
# from frozen word vectors by two learned projections; it is built
# for each micro-batch, inside the accumulation loop.
import torch
from torch import nn

torch.manual_seed(0)


class LabelGCN(nn.Module):
    def __init__(self, labels, word_dim, feat_dim):
        super().__init__()
        self.words = nn.Embedding(labels, word_dim)
        self.words.requires_grad_(False)  # pretrained GloVe vectors
        self.phi = nn.Linear(word_dim, 8, bias=False)
        self.theta = nn.Linear(word_dim, 8, bias=False)
        self.gc = nn.Linear(word_dim, feat_dim)

    def adjacency(self):
        e = self.words.weight
        return torch.softmax(self.phi(e) @ self.theta(e).T, dim=1)

    def forward(self, feats, adj):
        classifiers = torch.relu(adj @ self.gc(self.words.weight))
        return feats @ classifiers.T


backbone = nn.Sequential(nn.Linear(24, 32), nn.ReLU())
gcn = LabelGCN(labels=6, word_dim=10, feat_dim=32)
params = [p for m in (backbone, gcn) for p in m.parameters()
          if p.requires_grad]
optimizer = torch.optim.SGD(params, lr=0.5, momentum=0.9)
accum = 2
x = torch.randn(4, accum, 16, 24)
y = (torch.rand(4, accum, 16, 6) < 0.3).float()
before = gcn.phi.weight.detach().clone()
for step in range(4):
    optimizer.zero_grad()
    for micro in range(accum):
        adj = gcn.adjacency()
        logits = gcn(backbone(x[step, micro]), adj)
        loss = nn.functional.binary_cross_entropy_with_logits(
            logits, y[step, micro]) / accum
        loss.backward()
    optimizer.step()
    none = [n for n, p in gcn.named_parameters()
            if p.requires_grad and p.grad is None]
    print(f"step {step}: last micro loss {loss.item():.4f}, gcn "
          f"params with grad None: {none}")
moved = (gcn.phi.weight - before).abs().max().item()
print(f"gcn.phi.weight largest change: {moved:.4f}")
