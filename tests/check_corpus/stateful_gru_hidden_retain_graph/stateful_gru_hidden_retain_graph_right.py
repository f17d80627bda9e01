import math

import torch
import torch.nn as nn

torch.manual_seed(0)


class StatefulForecaster(nn.Module):
    def __init__(self, n_features=3, hidden=32):
        super().__init__()
        self.gru = nn.GRU(n_features, hidden, batch_first=True)
        self.head = nn.Linear(hidden, n_features)
        self.hidden = None

    def reset_state(self):
        self.hidden = None

    def forward(self, x):
        out, hidden = self.gru(x, self.hidden)
        self.hidden = hidden.detach()
        return self.head(out)


# a long multivariate series, trained in consecutive windows (stateful, like Keras stateful=True)
t = torch.arange(0, 2000, dtype=torch.float32) * 0.05
series = torch.stack([torch.sin(t), torch.cos(0.5 * t), torch.sin(0.3 * t) * torch.cos(t)], dim=-1)
series = series + 0.05 * torch.randn_like(series)
batch = series[: 1960].reshape(4, 490, 3)  # 4 parallel streams

model = StatefulForecaster()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
criterion = nn.MSELoss()
window = 35

for epoch in range(2):
    model.reset_state()
    total = 0.0
    for start in range(0, 490 - window - 1, window):
        x = batch[:, start:start + window]
        y = batch[:, start + 1:start + window + 1]
        pred = model(x)
        loss = criterion(pred, y)
        optimizer.zero_grad()
        loss.backward()
        nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        optimizer.step()
        total += loss.item()
    print(f"epoch {epoch} mean loss {total / math.ceil(490 / window):.4f}")
