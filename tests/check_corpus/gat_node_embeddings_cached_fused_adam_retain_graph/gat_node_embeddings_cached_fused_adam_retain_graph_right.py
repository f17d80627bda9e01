# Reduced from a GAT encoder whose node outputs feed a decoder's cross-attention
# (github.com/pyg-team/pytorch_geometric/issues/4259). The graph is encoded once, outside
# the batch loop. Right fix: encode the graph inside the loop, every step.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N, Fin, D, V, L, B = 12, 6, 16, 10, 5, 8

class GATLayer(nn.Module):
    def __init__(self, fin, fout):
        super().__init__()
        self.lin = nn.Linear(fin, fout, bias=False)
        self.a_src = nn.Parameter(torch.randn(fout) * 0.3)
        self.a_dst = nn.Parameter(torch.randn(fout) * 0.3)
    def forward(self, x, adj):
        h = self.lin(x)
        e = (h * self.a_src).sum(-1)[None, :] + (h * self.a_dst).sum(-1)[:, None]
        e = F.leaky_relu(e, 0.2).masked_fill(adj == 0, float("-inf"))
        return F.elu(torch.softmax(e, dim=-1) @ h)

class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(V, D)
        self.attn = nn.MultiheadAttention(D, 2, batch_first=True)
        self.out = nn.Linear(D, V)
    def forward(self, tokens, mem):
        q = self.tok(tokens)
        ctx, _ = self.attn(q, mem.expand(tokens.shape[0], -1, -1), mem.expand(tokens.shape[0], -1, -1))
        return self.out(ctx + q)

gat, dec = GATLayer(Fin, D), Decoder()
x = torch.randn(N, Fin)
adj = ((torch.rand(N, N) < 0.3) | torch.eye(N, dtype=torch.bool)).float()
opt = torch.optim.Adam([*gat.parameters(), *dec.parameters()], lr=5e-3, fused=True)
targets = torch.randint(0, V, (30, B, L + 1))

for batch in targets:
    node_emb = gat(x, adj)[None]
    inp, tgt = batch[:, :-1], batch[:, 1:]
    opt.zero_grad()
    logits = dec(inp, node_emb)
    loss = F.cross_entropy(logits.reshape(-1, V), tgt.reshape(-1))
    loss.backward()
    opt.step()
print(f"final loss {loss.item():.4f}")
