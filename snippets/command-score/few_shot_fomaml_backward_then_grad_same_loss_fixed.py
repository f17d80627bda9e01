"""oscarknagg/few-shot's first-order MAML step without the query
loss's backward: its one gradient pass is the grad() that follows.

Source: https://github.com/oscarknagg/few-shot/issues/6
The user wanted to know whether loss.backward(retain_graph=True) in
meta_gradient_step is needed, since the gradients of the same query
loss are taken again a few lines below with torch.autograd.grad;
the maintainer agreed that work was done twice.
Kept: meta_gradient_step for order 1 (fast weights from the model's
named parameters, inner steps with grad() and manual updates, the
query loss, grad() of it with respect to the fast weights, the mean
task gradients swapped in by hooks on a dummy forward, the optimiser
step) and create_nshot_task_label; changed: the convolutional
classifier became an MLP with a functional forward, float32, random
3-way 2-shot tasks, a meta-batch of two tasks, one inner step, two
meta-steps.
"""

from collections import OrderedDict

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
K_WAY, N_SHOT, Q_QUERIES, DIM = 3, 2, 2, 8
INNER_LR, INNER_STEPS = 0.4, 1


def create_nshot_task_label(k, q):
    return torch.arange(0, k, 1 / q).long()


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(DIM, 16)
        self.fc2 = nn.Linear(16, K_WAY)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))

    def functional_forward(self, x, weights):
        x = F.linear(x, weights["fc1.weight"], weights["fc1.bias"])
        x = F.relu(x)
        return F.linear(x, weights["fc2.weight"], weights["fc2.bias"])


def replace_grad(parameter_gradients, parameter_name):
    def replace_grad_(module):
        return parameter_gradients[parameter_name]

    return replace_grad_


def meta_gradient_step(model, optimiser, loss_fn, x, order=1):
    create_graph = order == 2
    task_gradients, task_losses = [], []
    for meta_batch in x:
        x_task_train = meta_batch[: N_SHOT * K_WAY]
        x_task_val = meta_batch[N_SHOT * K_WAY :]
        fast_weights = OrderedDict(model.named_parameters())
        for _ in range(INNER_STEPS):
            y = create_nshot_task_label(K_WAY, N_SHOT)
            logits = model.functional_forward(
                x_task_train, fast_weights
            )
            loss = loss_fn(logits, y)
            gradients = torch.autograd.grad(
                loss, fast_weights.values(), create_graph=create_graph
            )
            fast_weights = OrderedDict(
                (name, param - INNER_LR * grad)
                for ((name, param), grad) in zip(
                    fast_weights.items(), gradients
                )
            )
        y = create_nshot_task_label(K_WAY, Q_QUERIES)
        logits = model.functional_forward(x_task_val, fast_weights)
        loss = loss_fn(logits, y)
        print(f"query loss {loss.item():.4f}")
        task_losses.append(loss)
        gradients = torch.autograd.grad(
            loss, fast_weights.values(), create_graph=create_graph
        )
        named_grads = {
            name: g
            for ((name, _), g) in zip(fast_weights.items(), gradients)
        }
        task_gradients.append(named_grads)

    sum_task_gradients = {
        k: torch.stack([grad[k] for grad in task_gradients]).mean(dim=0)
        for k in task_gradients[0]
    }
    hooks = [
        param.register_hook(replace_grad(sum_task_gradients, name))
        for name, param in model.named_parameters()
    ]
    optimiser.zero_grad()
    logits = model(torch.zeros(K_WAY, DIM))
    loss = loss_fn(logits, create_nshot_task_label(K_WAY, 1))
    loss.backward()
    optimiser.step()
    for h in hooks:
        h.remove()
    return torch.stack(task_losses).mean()


def task_batch(n_tasks):
    tasks = []
    for _ in range(n_tasks):
        centers = torch.randn(K_WAY, DIM)
        support = centers.repeat_interleave(N_SHOT, 0)
        query = centers.repeat_interleave(Q_QUERIES, 0)
        x = torch.cat([support, query])
        tasks.append(x + 0.5 * torch.randn_like(x))
    return torch.stack(tasks)


def first_order_reference(params, x):
    # the mean query gradient at the adapted weights, from new leaves
    grads = []
    for meta_batch in x:
        fast = OrderedDict(
            (k, p.detach().clone().requires_grad_()) for k, p in params
        )
        y = create_nshot_task_label(K_WAY, N_SHOT)
        loss = F.cross_entropy(
            model.functional_forward(
                meta_batch[: N_SHOT * K_WAY], fast
            ),
            y,
        )
        g = torch.autograd.grad(loss, list(fast.values()))
        fast = OrderedDict(
            (k, (w - INNER_LR * d).detach().requires_grad_())
            for (k, w), d in zip(fast.items(), g)
        )
        y = create_nshot_task_label(K_WAY, Q_QUERIES)
        logits = model.functional_forward(
            meta_batch[N_SHOT * K_WAY :], fast
        )
        grads.append(
            torch.autograd.grad(
                F.cross_entropy(logits, y), list(fast.values())
            )
        )
    return [torch.stack(g).mean(dim=0) for g in zip(*grads)]


model = Classifier()
optimiser = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(2):
    x = task_batch(2)
    before = [
        (k, p.detach().clone()) for k, p in model.named_parameters()
    ]
    meta_loss = meta_gradient_step(
        model, optimiser, nn.CrossEntropyLoss(), x
    )
    ref = first_order_reference(before, x)
    same = all(
        torch.allclose(p.grad, r)
        for p, r in zip(model.parameters(), ref)
    )
    moved = all(
        not torch.equal(p, b)
        for p, (_, b) in zip(model.parameters(), before)
    )
    print(
        f"meta-step {step}: loss {meta_loss.item():.4f}, "
        f"update from the mean query gradient: {same}, "
        f"all weights stepped: {moved}"
    )
