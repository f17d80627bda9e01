"""A one-step recurrent network that keeps its hidden state on the
module, trained one time step per call of its train_it method.

Source: https://discuss.pytorch.org/t/runtimeerror-trying-to-backward-through-the-graph-a-second-time-but-the-buffers-have-already-been-freed-specify-retain-graph-true-when-calling-backward-the-first-time/6795
The user asked what the error means: it came the second time they
called loss.backward(), in a method train_it(self, x, y) that makes
the prediction with one step of a recurrent network, "which updates
its hidden state in the forward pass", and backpropagates its loss.
The first answer explains that backward frees the intermediate
results and that all but the last backward need retain_graph=True.
Kept: what the post shows (a module whose forward runs one step of a
recurrent network and updates the hidden state it keeps, train_it
making prediction = self(x) and loss = self.loss(prediction, y),
then backward); changed: the network became an nn.RNNCell(2, 4)
with a Linear(4, 1) readout, the hidden state starting at zeros,
self.loss an MSELoss, an SGD step at the end of train_it, a series
of 4 time steps of random data, seeded, a progress print.
"""

import torch
from torch import nn

torch.manual_seed(0)


class OneStepRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.RNNCell(2, 4)
        self.readout = nn.Linear(4, 1)
        self.loss = nn.MSELoss()
        self.hidden = torch.zeros(1, 4)
        self.optimizer = torch.optim.SGD(self.parameters(), lr=0.1)

    def forward(self, x):
        self.hidden = self.cell(x, self.hidden)
        return self.readout(self.hidden)

    def train_it(self, x, y):
        prediction = self(x)
        loss = self.loss(prediction, y)
        self.optimizer.zero_grad()
        loss.backward()
        self.optimizer.step()
        return loss.item()


model = OneStepRNN()
xs, ys = torch.randn(4, 1, 2), torch.randn(4, 1, 1)
for t in range(4):
    print(f"step {t}: loss {model.train_it(xs[t], ys[t]):.4f}")
