# P-tuning v2 style classification with a frozen language model: soft
# prompt vectors, reparameterized by a small MLP as in prefix-tuning,
# are prepended to the input embeddings; the prompt and a linear head
# are trained.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
V, D, P = 30, 16, 4
emb = nn.Embedding(V, D)
lm = nn.GRU(D, D, batch_first=True)
emb.requires_grad_(False)  # the pretrained model stays frozen
lm.requires_grad_(False)
prompt_emb = nn.Parameter(emb.weight[:P].detach().clone())  # from vocab
reparam = nn.Sequential(nn.Linear(D, 32), nn.Tanh(), nn.Linear(32, D))
head = nn.Linear(D, 2)
opt = torch.optim.Adam(
    [prompt_emb, *reparam.parameters(), *head.parameters()], lr=0.02
)
tokens = torch.randint(V, (6, 16, 6))
labels = (tokens[..., 0] < V // 2).long()
start = prompt_emb.detach().clone()


def classify(prompt, tok):
    with torch.no_grad():
        x = emb(tok)  # frozen token embeddings
    x = torch.cat([prompt.expand(len(tok), -1, -1), x], 1)
    _, h = lm(x)
    return head(h[-1])


# the prompt does not depend on the input: made once for all steps;
# the 2nd step asked to backward a second time, and the answer was to
# detach it
prompt = reparam(prompt_emb).unsqueeze(0).detach()

for step in range(6):
    loss = F.cross_entropy(classify(prompt, tokens[step]), labels[step])
    opt.zero_grad()
    loss.backward()
    g = prompt_emb.grad
    r = reparam[0].weight.grad
    print(
        f"step {step}: loss {loss.item():.4f}; prompt_emb grad "
        f"{'None' if g is None else f'{g.norm():.4f}'}, reparam grad "
        f"{'None' if r is None else f'{r.norm():.4f}'}"
    )
    opt.step()
print(f"prompt_emb moved by {(prompt_emb.detach() - start).norm():.4f}")
