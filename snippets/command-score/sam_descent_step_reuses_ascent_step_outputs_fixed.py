"""FedSAM's SAM client, its descent step's loss made from a forward
at the perturbed weights, as the repository's run_epoch has it.

Source: https://github.com/debcaldarola/fedsam/issues/6
The user had built both losses of the SAM step from one pred =
model(image); written from model(x) again, the descent step's loss
ran. SAM's descent step needs the gradient at the perturbed weights
w + eps, which only a new forward gives.
Kept: the raising program's SAM minimizer, model, optimizer and
loop; changed: the descent step's loss is criterion(model(inputs),
targets), and the print checks its gradients against those of a
copy of the model at the perturbed weights, and that they differ
from the ascent step's gradients at w.
"""

import copy
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
        ascent = [p.grad.clone() for p in model.parameters()]
        minimizer.ascent_step()
        print(f"batch {i}: ascent loss {loss.item():.4f}")

        # reference: a copy at the perturbed weights w + eps
        ref = copy.deepcopy(model)
        criterion(ref(inputs), targets).backward()

        # Descent Step
        criterion(model(inputs), targets).backward()
        same = all(
            torch.allclose(p.grad, q.grad)
            for p, q in zip(model.parameters(), ref.parameters())
        )
        moved = any(
            not torch.allclose(p.grad, g)
            for p, g in zip(model.parameters(), ascent)
        )
        print(
            f"batch {i}: descent grads = a copy's at w + eps: {same},",
            f"differ from the ascent's at w: {moved}",
        )
        minimizer.descent_step()

        with torch.no_grad():
            running_loss += loss.item()
        i += 1
    return running_loss / i


print(f"epoch loss {run_epoch(optimizer, criterion):.4f}")
