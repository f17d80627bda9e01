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
    # --8<-- [start:fix]
    h = model.h0.expand(1, 4, 8)  # each sequence starts from h0
    for t in range(0, 20, 5):  # truncated BPTT: chunks of 5 steps
        opt.zero_grad()
        pred, h = model(seq[:, t : t + 5], h)
        loss = F.mse_loss(pred, target[:, t : t + 5])
        loss.backward()
        opt.step()
        # After the backward: the next chunk starts from a constant.
        h = h.detach()
        # --8<-- [end:fix]
        g = model.h0.grad
        g = "None" if g is None else f"{g.norm().item():.4f}"
        print(
            f"sequence {i}, steps {t:2}-{t + 4:2}: "
            f"loss {loss.item():.4f}, |h0.grad| {g}"
        )
print(f"|h0| after training, from zeros: {model.h0.norm().item():.4f}")
