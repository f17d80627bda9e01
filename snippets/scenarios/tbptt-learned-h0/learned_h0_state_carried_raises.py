import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)


class Forecaster(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.GRU(3, 8, batch_first=True)
        self.h0 = nn.Parameter(torch.zeros(1, 1, 8))  # learned h0
        self.out = nn.Linear(8, 1)

    def forward(self, x, h):
        y, h = self.rnn(x, h)
        return self.out(y), h


model = Forecaster()
opt = torch.optim.Adam(model.parameters(), lr=0.01)
sequences = torch.randn(2, 4, 20, 3)  # 2 sequences: batch 4, 20 steps
targets = sequences[..., :1].cumsum(2) * 0.1

for i, (seq, target) in enumerate(zip(sequences, targets)):
    h = model.h0.expand(1, 4, 8)  # each sequence starts from h0
    for t in range(0, 20, 5):  # truncated BPTT: chunks of 5 steps
        opt.zero_grad()
        pred, h = model(seq[:, t : t + 5], h)
        loss = F.mse_loss(pred, target[:, t : t + 5])
        loss.backward()
        opt.step()
        print(
            f"sequence {i}, steps {t}-{t + 4}: loss {loss.item():.4f}"
        )
