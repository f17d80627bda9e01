"""A shared generator with two classifier heads, each head's loss
backpropagated on its own, the first backward with retain_graph=True.

Source: https://github.com/pytorch/xla/issues/1961. The thread's
first answer: use retain_graph=True as the error message recommends.
Both backward passes run through the generator's graph in the same
step, nothing changes the weights in between, and the generator gets
the gradient of both losses (what summing them would give, which the
user found correct but did not want). The check compares the
generator's gradients with those of loss1 + loss2 made again from
scratch on copies of the three modules.
"""

import copy

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


def grads_from_scratch(data):
    g = copy.deepcopy(generator)
    c1, c2 = copy.deepcopy(classifier_1), copy.deepcopy(classifier_2)
    gen = g(data.view(-1, 1))
    loss1, loss2 = c1(gen).mean(), c2(gen).mean()
    return torch.autograd.grad(loss1 + loss2, list(g.parameters()))


def equal(grads, expected):
    return all(torch.allclose(a, b) for a, b in zip(grads, expected))


for step, data in enumerate(loader):
    if step == 3:
        break
    both = grads_from_scratch(data)
    optimizer.zero_grad()
    gen = generator(data.view(-1, 1))
    loss1 = classifier_1(gen).mean()
    loss2 = classifier_2(gen).mean()
    loss1.backward(retain_graph=True)
    loss2.backward()
    grads = [p.grad for p in generator.parameters()]
    print(
        f"batch {step}: generator grads = both losses made again from"
        f" scratch: {equal(grads, both)}"
    )
    optimizer.step()
