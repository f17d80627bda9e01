# A bag-of-context next-token model with a tied, cosine-softmax output
# layer: logits are scaled cosines between the context vector and the
# normalized input embeddings.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
V, D, tau = 50, 16, 0.1
emb = nn.Embedding(V, D)
mix = nn.Linear(D, D)
opt = torch.optim.Adam([*emb.parameters(), *mix.parameters()], lr=0.05)
tokens = torch.randint(V, (8, 64, 5))

# the tied output matrix, normalized once; detached after the 2nd
# step asked to backward through its graph a second time
out_w = F.normalize(emb.weight, dim=1).detach()
for step in range(8):
    ctx, nxt = tokens[step, :, :4], tokens[step, :, 4]
    h = F.normalize(mix(emb(ctx).mean(1)), dim=1)
    loss = F.cross_entropy(h @ out_w.T / tau, nxt)
    now = F.normalize(emb.weight, dim=1)
    stale = ((out_w - now).norm() / now.norm()).item()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(
        f"step {step}: loss {loss.item():.4f}, output weights used "
        f"vs normalized emb.weight now {stale:.3f}"
    )
