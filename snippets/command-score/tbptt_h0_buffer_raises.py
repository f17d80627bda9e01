import torch
from torch import nn

torch.manual_seed(0)


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(3, 16, batch_first=True)
        self.register_buffer(
            "h0", torch.zeros(1, 1, 16)
        )  # fixed initial state
        self.out = nn.Linear(16, 1)

    def initial_state(self, batch_size):
        return self.h0.expand(1, batch_size, 16)

    def forward(self, x, h):
        y, h = self.rnn(x, h)
        return self.out(y), h


model = Forecaster()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
sequences = [
    torch.randn(4, 40, 3) for _ in range(2)
]  # (batch, time, features)
chunk = 10  # truncated BPTT: one update per chunk of 10 time steps

for i, seq in enumerate(sequences):
    target = seq[:, :, :1].cumsum(1) * 0.1
    h = model.initial_state(seq.shape[0])
    for t in range(0, seq.shape[1], chunk):
        optimizer.zero_grad()
        pred, h = model(seq[:, t : t + chunk], h)
        loss = nn.functional.mse_loss(pred, target[:, t : t + chunk])
        loss.backward()
        optimizer.step()
        print(
            f"sequence {i}, steps {t}-{t + chunk - 1}: "
            f"loss {loss.item():.3f}"
        )
