import torch
from torch import nn

torch.manual_seed(0)
lstm = nn.LSTM(input_size=3, hidden_size=4, batch_first=True)
head = nn.Linear(4, 1)
params = list(lstm.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=0.1)

inputs = torch.randn(2, 15, 3)
targets = torch.randn(2, 15, 1)


def repackage_hidden(h):
    # None: no state yet; a Tensor: RNN or GRU; a tuple: LSTM's (h, c)
    if h is None:
        return None
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


hidden = None
for i, start in enumerate(range(0, 15, 5)):
    x = inputs[:, start : start + 5]
    y = targets[:, start : start + 5]
    hidden = repackage_hidden(hidden)
    opt.zero_grad()
    out, hidden = lstm(x, hidden)
    loss = nn.functional.mse_loss(head(out), y)
    loss.backward()
    opt.step()
    print(f"batch {i}: loss = {loss.item():.4f}")
