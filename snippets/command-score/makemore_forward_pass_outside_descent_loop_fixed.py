"""makemore's fix: the forward pass runs at every step of the descent.

Source: https://github.com/karpathy/nn-zero-to-hero/issues/31
The user wanted to train the bigram network's weights W by gradient
descent on the five bigrams of "emma", as in makemore part 1.
"""

import torch
import torch.nn.functional as F

chars = "abcdefghijklmnopqrstuvwxyz"
stoi = {s: i + 1 for i, s in enumerate(chars)}
stoi["."] = 0
xs, ys = [], []
for w in ["emma"]:
    word = ["."] + list(w) + ["."]
    for ch1, ch2 in zip(word, word[1:]):
        xs.append(stoi[ch1])
        ys.append(stoi[ch2])
xs, ys = torch.tensor(xs), torch.tensor(ys)

g = torch.Generator().manual_seed(2147483647)
W = torch.randn((27, 27), generator=g, requires_grad=True)

for k in range(3):
    # Forward pass
    xenc = F.one_hot(xs, num_classes=27).float()
    logits = xenc @ W
    counts = logits.exp()
    prob = counts / counts.sum(1, keepdim=True)
    loss = -prob[torch.arange(5), ys].log().mean()
    # Backward pass
    W.grad = None
    loss.backward()
    print(
        f"step {k}: loss {loss.item():.4f}, "
        f"W grad norm {W.grad.norm():.4f}"
    )
    # Update the weights
    W.data += -0.1 * W.grad
