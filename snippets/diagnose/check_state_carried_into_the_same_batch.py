"""A recurrent model trained on one fixed batch at every epoch, its
hidden state detached and carried into the next epoch so that the
backward runs: it does, but each epoch starts from the state that the
same sequences left at the end of the last one."""

import torch
from torch import nn

torch.manual_seed(0)
rnn, head = nn.RNN(6, 8, batch_first=True), nn.Linear(8, 6)
params = [*rnn.parameters(), *head.parameters()]
opt = torch.optim.Adam(params, 1e-2)
x = torch.randn(3, 5, 6)  # the whole data set, read at every epoch
y = torch.randint(0, 6, (3, 5))
h = torch.zeros(1, 3, 8)


def loss_from(h0):
    out, h1 = rnn(x, h0)
    logits = head(out).flatten(0, 1)
    return nn.functional.cross_entropy(logits, y.flatten()), h1


for epoch in range(3):
    start = torch.zeros(1, 3, 8)
    fresh = torch.autograd.grad(loss_from(start)[0], params)
    loss, h = loss_from(h.detach())
    opt.zero_grad()
    loss.backward()
    same = all(
        torch.allclose(p.grad, g)
        for p, g in zip(params, fresh, strict=True)
    )
    print(f"epoch {epoch}: gradients of a pass from zeros: {same}")
    opt.step()
