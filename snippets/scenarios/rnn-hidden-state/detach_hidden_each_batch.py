import torch
from torch import nn

torch.manual_seed(0)
lstm = nn.LSTM(input_size=3, hidden_size=4, batch_first=True)
head = nn.Linear(4, 1)
params = list(lstm.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=0.1)

inputs = torch.randn(2, 15, 3)
targets = torch.randn(2, 15, 1)
hidden = (torch.zeros(1, 2, 4), torch.zeros(1, 2, 4))

# --8<-- [start:fix]
for i, start in enumerate(range(0, 15, 5)):
    x = inputs[:, start : start + 5]
    y = targets[:, start : start + 5]
    # Keep the values of (h, c), drop the graph that produced them:
    # this batch's backward stops here.
    hidden = tuple(t.detach() for t in hidden)
    opt.zero_grad()
    out, hidden = lstm(x, hidden)
    loss = nn.functional.mse_loss(head(out), y)
    loss.backward()
    # --8<-- [end:fix]
    opt.step()
    print(f"batch {i}: loss = {loss.item():.4f}")
