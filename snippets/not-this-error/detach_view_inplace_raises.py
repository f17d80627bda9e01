import torch
from torch import nn

torch.manual_seed(0)
rnn = nn.RNN(input_size=3, hidden_size=4, batch_first=True)
out, h = rnn(torch.randn(2, 5, 3))

last = out[:, -1]  # a view into out
last.detach_()
