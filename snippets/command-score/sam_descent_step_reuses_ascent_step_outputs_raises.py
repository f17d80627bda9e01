"""FedSAM's SAM client, its descent step's loss built from the outputs
of the ascent step's forward instead of a forward at the perturbed
weights.

Source: https://github.com/debcaldarola/fedsam/issues/6
The user asked how to backpropagate twice without this error. Their
answer, once solved: they had computed pred = model(image) once and
built both losses of the SAM step from it; the second backward then
fails; with the descent step's loss written from model(x) again, as
the repository's SAMClient.run_epoch has it, the error was gone.
Kept: the repository's SAM minimizer (ascent_step: the gradient's
norm, eps = rho * grad / norm added to each weight, zero_grad;
descent_step: eps taken off again, the optimizer's step, zero_grad)
and run_epoch's loop (ascent: outputs, loss, backward, ascent_step;
descent: a loss backpropagated, descent_step; running_loss), here
with the descent step's loss built from the ascent step's outputs,
as the user had it; changed: the CIFAR CNN became a Linear(8, 16),
ReLU, Linear(16, 3) network, the client's loader two batches of 6
random rows in 3 classes, SGD with the client's momentum and weight
decay, rho 0.05, seeded, a progress print.
"""

from collections import defaultdict

import torch
from torch import nn

torch.manual_seed(0)


class SAM:
    def __init__(self, optimizer, model, rho=0.5, eta=0.01):
        self.optimizer = optimizer
        self.model = model
        self.rho = rho
        self.eta = eta
        self.state = defaultdict(dict)

    @torch.no_grad()
    def ascent_step(self):
        grads = []
        for n, p in self.model.named_parameters():
            if p.grad is None:
                continue
            grads.append(torch.norm(p.grad, p=2))
        grad_norm = torch.norm(torch.stack(grads), p=2) + 1.0e-16
        for n, p in self.model.named_parameters():
            if p.grad is None:
                continue
            eps = self.state[p].get("eps")
            if eps is None:
                eps = torch.clone(p).detach()
                self.state[p]["eps"] = eps
            eps[...] = p.grad[...]
            eps.mul_(self.rho / grad_norm)
            p.add_(eps)
        self.optimizer.zero_grad()

    @torch.no_grad()
    def descent_step(self):
        for n, p in self.model.named_parameters():
            if p.grad is None:
                continue
            p.sub_(self.state[p]["eps"])
        self.optimizer.step()
        self.optimizer.zero_grad()


model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 3))
optimizer = torch.optim.SGD(
    model.parameters(), lr=0.1, momentum=0.9, weight_decay=4e-4
)
criterion = nn.CrossEntropyLoss()
trainloader = [
    (torch.randn(6, 8), torch.randint(0, 3, (6,))) for _ in range(2)
]


def run_epoch(optimizer, criterion):
    minimizer = SAM(optimizer, model, rho=0.05)
    running_loss = 0.0
    i = 0
    for inputs, targets in trainloader:
        # Ascent Step
        outputs = model(inputs)
        loss = criterion(outputs, targets)
        loss.backward()
        minimizer.ascent_step()
        print(f"batch {i}: ascent loss {loss.item():.4f}")

        # Descent Step
        criterion(outputs, targets).backward()
        minimizer.descent_step()

        with torch.no_grad():
            running_loss += loss.item()
        i += 1
    return running_loss / i


print(f"epoch loss {run_epoch(optimizer, criterion):.4f}")
