"""The RNN walkthrough's character model with the hidden state kept on
the model and passed back in at the next epoch, instead of the zeros
its forward makes.

Source: https://github.com/gabrielloye/RNN-walkthrough/issues/3 ("how
does hidden state work"). The notebook trains an nn.RNN to predict the
next character of three short sentences, the whole data set as one
batch per epoch, each forward starting from init_hidden's zeros. The
user asked why the state is always zeros and tried
out, self.hidden = self.rnn(x, self.hidden), expecting the gradient
to flow through each iteration of the hidden state; without a
.detach() that "causes all kinds of pytorch errors".
"""

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
        out, self.hidden = self.rnn(x, self.hidden)
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
for epoch in range(1, n_epochs + 1):
    optimizer.zero_grad()
    output, hidden = model(input_seq)
    output = output.to(device)
    target_seq = target_seq.to(device)
    loss = criterion(output, target_seq.view(-1).long())
    loss.backward()
    optimizer.step()

    if epoch % 10 == 0 or epoch == 1:
        print(
            f"Epoch: {epoch}/{n_epochs}............. Loss: {loss:.4f}"
        )
