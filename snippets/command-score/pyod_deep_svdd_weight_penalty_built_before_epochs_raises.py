"""pyod's DeepSVDD.fit() with its commented-out loss.backward() put
back.

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

w_d = 1e-6 * sum(torch.linalg.norm(w) for w in model.parameters())
for epoch in range(EPOCHS):
    model.train()
    epoch_loss = 0.0
    for batch_x in X.split(BATCH):
        outputs = model(batch_x)
        dist = torch.sum((outputs - c) ** 2, dim=-1)
        loss = torch.mean(dist) + w_d
        model.zero_grad()
        loss.backward()
        optimizer.step()
        epoch_loss += loss.item()
    print(f"epoch {epoch}: loss {epoch_loss:.5f}")
