import torch
from torch import nn

torch.manual_seed(0)
lstm = nn.LSTM(input_size=3, hidden_size=4, batch_first=True)
head = nn.Linear(4, 1)
params = list(lstm.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=0.1)

inputs = torch.randn(2, 15, 3)
targets = torch.randn(2, 15, 1)

# nn.LSTM accepts None for the state and then starts from zeros.
zeros = (torch.zeros(1, 2, 4), torch.zeros(1, 2, 4))
same = torch.equal(lstm(inputs, None)[0], lstm(inputs, zeros)[0])
print(f"lstm(x, None) == lstm(x, zeros): {same}")

hidden = None  # so the first batch starts from zeros
for i, start in enumerate(range(0, 15, 5)):
    x = inputs[:, start : start + 5]
    y = targets[:, start : start + 5]
    hidden = tuple(t.detach() for t in hidden)  # hidden is None here
    opt.zero_grad()
    out, hidden = lstm(x, hidden)
    loss = nn.functional.mse_loss(head(out), y)
    loss.backward()
    opt.step()
    print(f"batch {i}: loss = {loss.item():.4f}")
