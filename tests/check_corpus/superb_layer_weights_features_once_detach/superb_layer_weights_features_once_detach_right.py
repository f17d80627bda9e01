# SUPERB-style probing of a frozen speech model: the downstream task
# learns a softmax-weighted sum of the upstream's hidden states (one
# weight per layer) and a small head on top.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
L, T, D = 4, 10, 16
upstream = nn.ModuleList(nn.Linear(D, D) for _ in range(L))
upstream.requires_grad_(False)  # frozen, as SUPERB evaluates it
layer_w = nn.Parameter(torch.zeros(L + 1))
head = nn.Linear(D, 2)
opt = torch.optim.Adam([layer_w, *head.parameters()], lr=0.05)
wavs = torch.randn(96, T, D)


def hidden_states(x):
    hs = [x]
    for layer in upstream:
        hs.append(torch.tanh(layer(hs[-1])))
    return torch.stack(hs)  # (L + 1, N, T, D)


def featurize(hs):
    w = F.softmax(layer_w, 0)
    return (w[:, None, None, None] * hs).sum(0)


with torch.no_grad():
    # the task is read off layer 3
    labels = (hidden_states(wavs)[3, :, :, 0].mean(1) > 0).long()

# the frozen upstream's hidden states for the whole set, computed once
# and cached; the layer weights are applied to them batch by batch
with torch.no_grad():
    hs = hidden_states(wavs)

for step in range(8):
    idx = torch.arange(step % 4 * 24, step % 4 * 24 + 24)
    logits = head(featurize(hs[:, idx]).mean(1))
    loss = F.cross_entropy(logits, labels[idx])
    opt.zero_grad()
    loss.backward()
    g = "None" if layer_w.grad is None else f"{layer_w.grad.norm():.4f}"
    print(f"step {step}: loss {loss.item():.4f}, layer_w grad {g}")
    opt.step()
w = F.softmax(layer_w.detach(), 0)
print("layer weights at the end", [round(v, 3) for v in w.tolist()])
