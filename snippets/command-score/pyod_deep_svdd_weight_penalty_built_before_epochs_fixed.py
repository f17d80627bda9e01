"""pyod's DeepSVDD.fit() with loss.backward() put back and the weight
penalty w_d computed for every batch (pyod's pull request 704).

Source: https://github.com/yzhao062/pyod/issues/606
The user wanted DeepSVDD to train: the mean distance to the center
plus the weight penalty w_d, backpropagated for every batch.
"""

import torch
from torch import nn

torch.manual_seed(0)
X = torch.randn(64, 6)
BATCH, EPOCHS = 16, 2

model = nn.Sequential(
    nn.Linear(6, 8, bias=False), nn.ReLU(), nn.Linear(8, 4, bias=False)
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
with torch.no_grad():
    c = model(X).mean(0)  # the hypersphere's center, from the data

for epoch in range(EPOCHS):
    model.train()
    epoch_loss = 0.0
    for batch_x in X.split(BATCH):
        outputs = model(batch_x)
        dist = torch.sum((outputs - c) ** 2, dim=-1)
        # the penalty of the weights as they are now, in this graph
        w_d = 1e-6 * sum(
            torch.linalg.norm(w) for w in model.parameters()
        )
        loss = torch.mean(dist) + w_d
        model.zero_grad()
        loss.backward()
        w = model[0].weight
        dist_grad = torch.autograd.grad(
            torch.mean(torch.sum((model(batch_x) - c) ** 2, dim=-1)), w
        )[0]
        fresh = torch.allclose(
            w.grad - dist_grad, 1e-6 * w.detach() / w.detach().norm()
        )
        optimizer.step()
        epoch_loss += loss.item()
    print(
        f"epoch {epoch}: loss {epoch_loss:.5f}, "
        f"penalty grad from the current weights: {fresh}"
    )
