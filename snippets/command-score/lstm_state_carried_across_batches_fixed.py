"""An LSTM whose hidden and cell states are carried from one batch to
the next through the epoch, detached at each batch.

Source: https://blog.youkuaiyun.com/windhawk_fly/article/details/143405685
The user wanted to train an LSTM over an epoch's batches, h0 and c0
drawn at random at the start of each epoch and the states the LSTM
returns for one batch passed in as the next batch's initial states.
Kept: the epoch loop as posted, the states now detached after each
batch's step (h0, c0 = h0.detach(), c0.detach()); changed: the model
became nn.LSTM over 6 features with a linear head of 6 outputs, Adam,
MSE, two epochs of three batches of 4 sequences of 5 steps.
"""

import torch
from torch import nn

torch.manual_seed(0)
EPOCH, num_layers, batch_size = 2, 1, 4
embedding_dim, hidden_dim, seq_len = 6, 8, 5


class LSTMModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(
            embedding_dim, hidden_dim, num_layers, batch_first=True
        )
        self.fc = nn.Linear(hidden_dim, embedding_dim)

    def forward(self, x, h0, c0):
        out, (h, c) = self.lstm(x, (h0, c0))
        return self.fc(out), (h, c)


lstm = LSTMModel()
optimizer = torch.optim.Adam(lstm.parameters(), lr=1e-2)
loss_fn = nn.MSELoss()
data_loader = [
    (
        torch.randn(batch_size, seq_len, embedding_dim),
        torch.randn(batch_size * seq_len, embedding_dim),
    )
    for _ in range(3)
]
batch_count = len(data_loader)
params = list(lstm.parameters())

for epoch in range(EPOCH):
    batch_num = 0
    h0 = torch.randn(
        (num_layers, batch_size, hidden_dim), requires_grad=False
    )
    c0 = torch.randn(
        (num_layers, batch_size, hidden_dim), requires_grad=False
    )
    for batch in data_loader:
        start = (h0.clone(), c0.clone())  # the values carried in
        optimizer.zero_grad()
        output, (h0, c0) = lstm(batch[0], h0, c0)
        loss = loss_fn(output.reshape(-1, embedding_dim), batch[1])
        loss.backward()
        # reference: a fresh forward of this batch from the carried
        # values, as constants
        ref_out, _ = lstm(batch[0], *start)
        ref_loss = loss_fn(ref_out.reshape(-1, embedding_dim), batch[1])
        ref = torch.autograd.grad(ref_loss, params)
        same = all(
            torch.allclose(p.grad, r, atol=1e-6)
            for p, r in zip(params, ref)
        )
        every = all(p.grad.abs().sum() > 0 for p in params)
        optimizer.step()
        h0, c0 = h0.detach(), c0.detach()
        batch_num += 1  # noqa: SIM113 (as posted)
        print(
            f"epoch {epoch} : batch {batch_num} : {loss.item():.4f},"
            f" grads = a fresh forward from the carried state: {same},"
            f" every parameter has a gradient: {every}"
        )
