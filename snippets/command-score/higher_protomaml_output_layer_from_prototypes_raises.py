"""higher: first-order ProtoMAML, the output layer initialised from
prototypes that keep the encoder's graph.

Source: https://github.com/facebookresearch/higher/issues/70
The user wanted first-order ProtoMAML: each task's output layer starts
from its support set's class prototypes (weight 2 * prototype, bias
-|prototype|^2), is adapted with the encoder for a few steps under
higher with track_higher_grads=False, and the query loss trains the
encoder.
"""

import higher
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
DIM, HID, CLASSES, SHOTS, STEPS, LR = 8, 6, 3, 4, 2, 0.1

encoder = nn.Sequential(nn.Linear(DIM, HID), nn.Tanh())
inner_opt = torch.optim.SGD(encoder.parameters(), lr=LR)
meta_opt = torch.optim.Adam(encoder.parameters(), lr=1e-2)


def sample_task():
    centres = torch.randn(CLASSES, DIM) * 2
    y = torch.arange(CLASSES).repeat_interleave(SHOTS)
    x_s = centres[y] + torch.randn(len(y), DIM)
    x_q = centres[y] + torch.randn(len(y), DIM)
    return x_s, y, x_q, y


def prototypes(reprs, labels):
    return torch.stack(
        [reprs[labels == c].mean(0) for c in range(CLASSES)]
    )


for episode in range(2):
    x_s, y_s, x_q, y_q = sample_task()
    meta_opt.zero_grad()
    with higher.innerloop_ctx(
        encoder,
        inner_opt,
        copy_initial_weights=False,
        track_higher_grads=False,
    ) as (fenc, diffopt):
        protos = prototypes(fenc(x_s), y_s)
        weight = 2 * protos
        bias = -(protos**2).sum(-1)
        for _ in range(STEPS):
            logits = F.linear(fenc(x_s), weight, bias)
            loss = F.cross_entropy(logits, y_s)
            g_w, g_b = torch.autograd.grad(
                loss, [weight, bias], retain_graph=True
            )
            weight = weight - LR * g_w
            bias = bias - LR * g_b
            diffopt.step(loss)
        query = F.linear(fenc(x_q), weight, bias)
        query_loss = F.cross_entropy(query, y_q)
        query_loss.backward()
    meta_opt.step()
    print(f"episode {episode}: query loss {query_loss.item():.3f}")
