# https://github.com/MorvanZhou/PyTorch-Tutorial/issues/57
# Reduced from MorvanZhou's tutorial-contents/403_RNN_regressor.py with
# the tutorial's repacking line (`h_state = h_state.data`, here
# .detach()) kept: an RNN learns to predict cos from sin over
# consecutive windows, carrying h_state from one window to the next.
import math

import torch
from torch import nn

torch.manual_seed(0)

# Hyper Parameters
TIME_STEP = 10  # rnn time step
INPUT_SIZE = 1  # rnn input size
LR = 0.02  # learning rate


class RNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.rnn = nn.RNN(
            input_size=INPUT_SIZE,
            hidden_size=32,  # rnn hidden unit
            num_layers=1,  # number of rnn layer
            batch_first=True,  # (batch, time_step, input_size)
        )
        self.out = nn.Linear(32, 1)

    def forward(self, x, h_state):
        r_out, h_state = self.rnn(x, h_state)
        outs = []  # save all predictions
        for time_step in range(
            r_out.size(1)
        ):  # calculate output for each time step
            outs.append(self.out(r_out[:, time_step, :]))
        return torch.stack(outs, dim=1), h_state


rnn = RNN()
optimizer = torch.optim.Adam(rnn.parameters(), lr=LR)
loss_func = nn.MSELoss()

h_state = None  # for initial hidden state

for step in range(30):
    start, end = step * math.pi, (step + 1) * math.pi  # time range
    steps = torch.linspace(
        start, end, TIME_STEP
    )  # use sin predicts cos
    x = torch.sin(steps)[
        None, :, None
    ]  # shape (batch, time_step, input_size)
    y = torch.cos(steps)[None, :, None]

    prediction, h_state = rnn(x, h_state)  # rnn output
    # repack the hidden state, break the connection from last iteration
    h_state = h_state.detach()

    loss = loss_func(prediction, y)  # calculate loss
    optimizer.zero_grad()  # clear gradients for this training step
    loss.backward()  # backpropagation, compute gradients
    grad_norm = torch.norm(
        torch.stack([p.grad.norm() for p in rnn.parameters()])
    )
    optimizer.step()  # apply gradients
    if step % 5 == 0 or step == 29:
        print(
            f"step {step}: loss {loss.item():.3f}, "
            f"grad norm {grad_norm.item():.3f}"
        )
