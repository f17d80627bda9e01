"""A one-step recurrent network that keeps its hidden state on the
module, the state detached at the start of each train_it call.

Source: https://discuss.pytorch.org/t/runtimeerror-trying-to-backward-through-the-graph-a-second-time-but-the-buffers-have-already-been-freed-specify-retain-graph-true-when-calling-backward-the-first-time/6795
The user trained a recurrent network one time step per call of
train_it(self, x, y), its forward updating the hidden state the
module keeps; the second call's backward raised this error.
Kept: the raising program's module, data and loop; changed: train_it
starts with self.hidden = self.hidden.detach(), so each step's
backward stops at the state the last step left (truncated
backpropagation through time, one step), and checks the gradients
against those of a fresh forward from the same carried value, and
that every parameter has a gradient.
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
        self.hidden = self.hidden.detach()
        carried = self.hidden.clone()
        prediction = self(x)
        loss = self.loss(prediction, y)
        self.optimizer.zero_grad()
        loss.backward()
        # reference: a fresh forward from the carried value
        params = list(self.parameters())
        ref_loss = self.loss(self.readout(self.cell(x, carried)), y)
        ref = torch.autograd.grad(ref_loss, params)
        same = all(
            p.grad is not None and torch.allclose(p.grad, r)
            for p, r in zip(params, ref)
        )
        self.optimizer.step()
        return loss.item(), same


model = OneStepRNN()
xs, ys = torch.randn(4, 1, 2), torch.randn(4, 1, 1)
for t in range(4):
    loss, same = model.train_it(xs[t], ys[t])
    print(f"step {t}: loss {loss:.4f}, grads = a fresh step's: {same}")
