"""The same model, its state started from zeros at each epoch: every
epoch reads the sequences from their first step, and its
gradients are those of a pass from zeros."""

import torch
from torch import nn

torch.manual_seed(0)
rnn, head = nn.RNN(6, 8, batch_first=True), nn.Linear(8, 6)
params = [*rnn.parameters(), *head.parameters()]
opt = torch.optim.Adam(params, 1e-2)
x = torch.randn(3, 5, 6)  # the whole data set, read at every epoch
y = torch.randint(0, 6, (3, 5))


def loss_from(h0):
    out, h1 = rnn(x, h0)
    logits = head(out).flatten(0, 1)
    return nn.functional.cross_entropy(logits, y.flatten()), h1


for epoch in range(3):
    start = torch.zeros(1, 3, 8)
    fresh = torch.autograd.grad(loss_from(start)[0], params)
    loss, _ = loss_from(torch.zeros(1, 3, 8))
    opt.zero_grad()
    loss.backward()
    same = all(
        torch.allclose(p.grad, g)
        for p, g in zip(params, fresh, strict=True)
    )
    print(f"epoch {epoch}: gradients of a pass from zeros: {same}")
    opt.step()
