# MorvanZhou's 403_RNN_regressor.py: an RNN predicts cos from sin
# over consecutive windows, carrying h_state from window to window.
import math

import torch
from torch import nn

torch.manual_seed(0)


class RNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(1, 32, batch_first=True)
        self.out = nn.Linear(32, 1)

    def forward(self, x, h_state):
        r_out, h_state = self.rnn(x, h_state)
        return self.out(r_out), h_state


rnn = RNN()
optimizer = torch.optim.Adam(rnn.parameters(), lr=0.02)
h_state = None

for step in range(8):
    t = torch.linspace(step * math.pi, (step + 1) * math.pi, 10)
    x, y = torch.sin(t)[None, :, None], torch.cos(t)[None, :, None]
    prediction, h_state = rnn(x, h_state)
    h_state = h_state.detach()
    loss = nn.functional.mse_loss(prediction, y)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
print(f"step {step}: loss {loss.item():.3f}")
