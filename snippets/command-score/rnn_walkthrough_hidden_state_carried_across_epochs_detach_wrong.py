"""The RNN walkthrough's character model with the user's
out, self.hidden = self.rnn(x, self.hidden.detach()): it runs, and its
loss goes lower, but each epoch starts the three sentences from the
state their own last characters left at the end of the previous epoch.

Source: https://github.com/gabrielloye/RNN-walkthrough/issues/3. The
user reports 0.025 against the notebook's 0.05 after 2000 epochs. The
batch is the same three sentences at every epoch, so the carried state
holds the characters each sentence is asked to predict. The checks:
whether the model's gradients are those of a forward from zeros (the
notebook's), and whether the state the next epoch starts from changes
when this epoch's later characters change.
"""

import copy

import numpy as np
import torch
from torch import nn

torch.manual_seed(0)
device = torch.device("cpu")

text = ["hey how are you", "good i am fine", "have a nice day"]
chars = sorted(set("".join(text)))
int2char = dict(enumerate(chars))
char2int = {char: ind for ind, char in int2char.items()}

maxlen = len(max(text, key=len))
for i in range(len(text)):
    while len(text[i]) < maxlen:
        text[i] += " "

input_seq = []
target_seq = []
for i in range(len(text)):
    input_seq.append(text[i][:-1])
    target_seq.append(text[i][1:])
for i in range(len(text)):
    input_seq[i] = [char2int[character] for character in input_seq[i]]
    target_seq[i] = [char2int[character] for character in target_seq[i]]

dict_size = len(char2int)
seq_len = maxlen - 1
batch_size = len(text)


def one_hot_encode(sequence, dict_size, seq_len, batch_size):
    features = np.zeros(
        (batch_size, seq_len, dict_size), dtype=np.float32
    )
    for i in range(batch_size):
        for u in range(seq_len):
            features[i, u, sequence[i][u]] = 1
    return features


input_seq = one_hot_encode(input_seq, dict_size, seq_len, batch_size)
input_seq = torch.from_numpy(input_seq)
target_seq = torch.Tensor(target_seq)


class Model(nn.Module):
    def __init__(self, input_size, output_size, hidden_dim, n_layers):
        super().__init__()
        self.hidden_dim = hidden_dim
        self.n_layers = n_layers
        self.rnn = nn.RNN(
            input_size, hidden_dim, n_layers, batch_first=True
        )
        self.fc = nn.Linear(hidden_dim, output_size)
        self.hidden = None

    def forward(self, x):
        batch_size = x.size(0)
        if self.hidden is None:
            self.hidden = self.init_hidden(batch_size)
        out, self.hidden = self.rnn(x, self.hidden.detach())
        out = out.contiguous().view(-1, self.hidden_dim)
        out = self.fc(out)
        return out, self.hidden

    def init_hidden(self, batch_size):
        hidden = torch.zeros(self.n_layers, batch_size, self.hidden_dim)
        return hidden.to(device)


model = Model(
    input_size=dict_size,
    output_size=dict_size,
    hidden_dim=12,
    n_layers=1,
)
model = model.to(device)

n_epochs = 100
lr = 0.01
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=lr)

input_seq = input_seq.to(device)
target_seq = target_seq.to(device)
later_changed = input_seq.clone()
later_changed[:, 1:] = input_seq[:, 1:].roll(1, dims=0)


def next_start(x, h_in):  # the state the next forward starts from
    return model.rnn(x, h_in)[1]


def grads_from_zero_state(model):
    hidden, model.hidden = model.hidden, None
    fresh = copy.deepcopy(model)
    model.hidden = hidden
    out, _ = fresh(input_seq)
    loss = criterion(out, target_seq.view(-1).long())
    return torch.autograd.grad(loss, list(fresh.parameters()))


for epoch in range(1, n_epochs + 1):
    expected = grads_from_zero_state(model)
    h_in = model.hidden
    optimizer.zero_grad()
    output, hidden = model(input_seq)
    output = output.to(device)
    loss = criterion(output, target_seq.view(-1).long())
    loss.backward()

    if epoch in (1, 2, 3, 50, 100):
        fresh = all(
            torch.allclose(p.grad, g, atol=1e-6)
            for p, g in zip(model.parameters(), expected)
        )
        seen = not torch.equal(
            next_start(input_seq, h_in), next_start(later_changed, h_in)
        )
        print(
            f"epoch {epoch}: grads = a forward from zeros: {fresh},"
            " the next epoch starts from this one's later characters:"
            f" {seen}"
        )
    optimizer.step()
