"""The RNN walkthrough's character model as the notebook has it: each
forward starts the sentences from init_hidden's zeros.

Source: https://github.com/gabrielloye/RNN-walkthrough/issues/3. The
three sentences are the whole data set and the batch of every epoch:
each epoch reads each sentence from its first character, so there is
no earlier state to carry, and the gradient the user expected to flow
"through each iteration of the hidden state" flows through the time
steps of the sentence inside one forward (backpropagation through
time). The checks: the model's gradients are those of a forward from
zeros on a fresh copy, and the state the next epoch starts from does
not change when this epoch's later characters change.
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

    def forward(self, x):
        batch_size = x.size(0)
        hidden = self.init_hidden(batch_size)
        out, hidden = self.rnn(x, hidden)
        out = out.contiguous().view(-1, self.hidden_dim)
        out = self.fc(out)
        return out, hidden

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
    return model.init_hidden(x.size(0))


def grads_from_zero_state(model):
    fresh = copy.deepcopy(model)
    out, _ = fresh(input_seq)
    loss = criterion(out, target_seq.view(-1).long())
    return torch.autograd.grad(loss, list(fresh.parameters()))


for epoch in range(1, n_epochs + 1):
    expected = grads_from_zero_state(model)
    h_in = None
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
