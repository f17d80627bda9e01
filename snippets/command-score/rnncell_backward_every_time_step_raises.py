import torch
from torch import nn

torch.manual_seed(0)

cell = nn.RNNCell(3, 16)
readout = nn.Linear(16, 1)
optimizer = torch.optim.SGD(
    list(cell.parameters()) + list(readout.parameters()), lr=0.01
)
sequences = [
    torch.randn(12, 8, 3) for _ in range(2)
]  # (time, batch, features)

for i, seq in enumerate(sequences):
    target = seq[:, :, :1].cumsum(0) * 0.2
    optimizer.zero_grad()
    h = torch.zeros(8, 16)
    total = 0.0
    for t in range(seq.shape[0]):
        h = cell(seq[t], h)
        loss_t = nn.functional.mse_loss(readout(h), target[t])
        loss_t.backward()  # per time step, to keep memory low
        total += loss_t.item()
        if t == 0:
            print(f"sequence {i}: first step loss {loss_t.item():.3f}")
    optimizer.step()
    print(f"sequence {i}: mean loss {total / seq.shape[0]:.3f}")
