"""A shared generator with two classifier heads, each head's loss
backpropagated on its own: loss1.backward(), then loss2.backward().

Source: https://github.com/pytorch/xla/issues/1961 ("Unable to
backward two losses"). The user set up two separate losses for two
outputs of the model and wanted to backpropagate them one after the
other: the first backward works, the second fails (on a Colab TPU the
process died without a message; on CPU it is this error). Summing the
losses and calling backward() once works, but the user wrote that it
does not fit their use case. An answer in the thread: the only
tensor the two graphs share is the generator's output `gen`.
"""

import numpy as np
import torch
from torch import nn

torch.manual_seed(0)

generator = nn.Linear(1, 10)  # dummy generator
classifier_1 = nn.Linear(10, 1)  # dummy classifier 1
classifier_2 = nn.Linear(10, 2)  # dummy classifier 2

loader = torch.utils.data.DataLoader(
    list(np.arange(100, dtype=np.float32)),
    batch_size=4,
    drop_last=True,
)
params = [
    *generator.parameters(),
    *classifier_1.parameters(),
    *classifier_2.parameters(),
]
optimizer = torch.optim.SGD(params, lr=1e-3)

for step, data in enumerate(loader):
    if step == 3:
        break
    optimizer.zero_grad()
    gen = generator(data.view(-1, 1))
    loss1 = classifier_1(gen).mean()
    loss2 = classifier_2(gen).mean()
    print(f"batch {step}: loss1 {loss1:.4f}, loss2 {loss2:.4f}")
    loss1.backward()
    loss2.backward()
    optimizer.step()
