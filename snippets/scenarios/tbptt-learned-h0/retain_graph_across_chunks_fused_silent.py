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
# fused: the step leaves the weights' version counters as they were
opt = torch.optim.Adam(model.parameters(), lr=0.01, fused=True)
sequences = torch.randn(2, 4, 20, 3)  # 2 sequences: batch 4, 20 steps
targets = sequences[..., :1].cumsum(2) * 0.1
seq, target = sequences[0], targets[0]
reached = []  # what each backward went through
model.h0.register_hook(lambda g: reached.append("h0"))


weight = model.rnn.weight_hh_l0  # saved by every chunk's graph
h = model.h0.expand(1, 4, 8)
for k, t in enumerate(range(0, 20, 5)):
    opt.zero_grad()
    pred, h = model(seq[:, t : t + 5], h)
    # Fires when a later backward goes through this chunk's state.
    h.register_hook(lambda g, k=k: reached.append(k))
    loss = F.mse_loss(pred, target[:, t : t + 5])
    reached.clear()
    loss.backward(retain_graph=True)  # the wrong fix
    print(f"steps {t:2}-{t + 4:2}: backward went through {reached}")
    before = weight.detach().clone()
    opt.step()
    moved = not torch.equal(before, weight)
    version = weight._version
    print(f"  step moved weight_hh_l0: {moved}, its version: {version}")
