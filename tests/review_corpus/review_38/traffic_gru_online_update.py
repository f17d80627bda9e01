import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def traffic_stream(n_steps, n_sensors=8):
    t = torch.arange(n_steps, dtype=torch.float32)
    daily = torch.sin(2 * math.pi * t / 96).unsqueeze(1)
    offsets = torch.linspace(0, 1, n_sensors).unsqueeze(0)
    flow = 1.0 + daily * (0.5 + offsets) + 0.1 * torch.randn(n_steps, n_sensors)
    return flow


class Forecaster(nn.Module):
    def __init__(self, n_sensors, hidden=32):
        super().__init__()
        self.gru = nn.GRU(n_sensors, hidden, batch_first=True)
        self.out = nn.Linear(hidden, n_sensors)

    def forward(self, x, h=None):
        y, h = self.gru(x, h)
        return self.out(y), h


stream = traffic_stream(960)
model = Forecaster(stream.shape[1])
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
window = 48

h = None
for start in range(0, len(stream) - window - 1, window):
    x = stream[start : start + window].unsqueeze(0)
    target = stream[start + 1 : start + window + 1].unsqueeze(0)
    preds, h = model(x, h)
    h = h.detach()
    window_err = 0.0
    for t in range(window):
        optimizer.zero_grad()
        step_loss = F.mse_loss(preds[:, t], target[:, t])
        step_loss.backward()
        optimizer.step()
        window_err += step_loss.item()
    print(start, window_err / window)
