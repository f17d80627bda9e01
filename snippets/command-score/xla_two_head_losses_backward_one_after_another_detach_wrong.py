"""A shared generator with two classifier heads, the second head fed
gen.detach(): it runs, but loss2 no longer trains the generator.

Source: https://github.com/pytorch/xla/issues/1961. The thread's
second answer: use .detach() when passing gen as an input. The user's
working workaround (summing the losses) trains the generator with both
losses; with the detach, loss2's backward stops at gen. The check
compares the generator's gradients with those of loss1 alone and of
loss1 + loss2, made again from scratch on copies of the modules.
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
    own = torch.autograd.grad(
        loss1, list(g.parameters()), retain_graph=True
    )
    both = torch.autograd.grad(loss1 + loss2, list(g.parameters()))
    return own, both


def equal(grads, expected):
    return all(torch.allclose(a, b) for a, b in zip(grads, expected))


for step, data in enumerate(loader):
    if step == 3:
        break
    own, both = grads_from_scratch(data)
    optimizer.zero_grad()
    gen = generator(data.view(-1, 1))
    loss1 = classifier_1(gen).mean()
    loss2 = classifier_2(gen.detach()).mean()
    loss1.backward()
    loss2.backward()
    grads = [p.grad for p in generator.parameters()]
    print(
        f"batch {step}: generator grads = loss1 alone:"
        f" {equal(grads, own)}, = both losses: {equal(grads, both)}"
    )
    optimizer.step()
