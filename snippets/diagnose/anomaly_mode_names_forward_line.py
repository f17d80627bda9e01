import os
import re
import warnings

import torch
from torch import nn

torch.manual_seed(0)
# On before the forward pass: every node then records where it was made.
torch.autograd.set_detect_anomaly(True)

encoder = nn.Sequential(nn.Linear(4, 8), nn.ReLU())
head = nn.Linear(8, 1)
params = [*encoder.parameters(), *head.parameters()]
opt = torch.optim.SGD(params, lr=0.1)
x, target = torch.randn(16, 4), torch.randn(16, 1)
features = encoder(x)  # computed once, before the loop


def show(warning):
    """The warning, with only this script's frames, paths shortened."""
    text = str(warning.message)
    print(text.split("\n")[0])
    frame = r'File "(.+)", line (\d+), in (.+)\n +(.*)'
    for path, line, where, code in re.findall(frame, text):
        if path == __file__:
            name = os.path.basename(path)
            print(f'  File "{name}", line {line}, in {where}')
            print(f"    {code}")


# Anomaly mode reports with a warning on stderr; record it to print it.
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    try:
        for step in range(2):
            loss = nn.functional.mse_loss(head(features), target)
            opt.zero_grad()
            loss.backward()
            opt.step()
    finally:
        for warning in caught:
            show(warning)
