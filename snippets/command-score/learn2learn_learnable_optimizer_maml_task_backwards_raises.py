"""learn2learn's LearnableOptimizer stepping the parameters of a MAML
model, and one backward per task of the meta-batch.

Source: https://github.com/learnables/learn2learn/issues/381
The user wanted MAML whose meta-update is a learnable optimizer (a
hypergradient transform): each task's evaluation error
backpropagated on its own, as learn2learn's MAML examples do, then
the transform's optimizer step and the LearnableOptimizer's step.
Kept: LearnableOptimizer.step (each parameter's update made by its
transform from the parameter's .grad, the parameter detached and
replaced by parameter + update so that the update stays
differentiable, then retain_grad), zero_grad (fresh zero .grad
tensors), the hypergradient transform (a learned per-entry learning
rate times the gradient), MAML's clone() and a second-order adapt();
changed: DistilBERT became a small MLP on random 3-way tasks, two
iterations of two tasks, one adaptation step.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
WAYS, SHOTS, DIM = 3, 4, 8
FAST_LR, META_LR, HYPER_LR = 0.5, 0.1, 0.1


def own_params(module):
    return [
        (mod, name)
        for mod in module.modules()
        for name in list(mod._parameters)
    ]


def update_module(module, updates):
    # learn2learn.update_module: p <- p + update, in the graph
    for (mod, name), update in zip(own_params(module), updates):
        mod._parameters[name] = mod._parameters[name] + update


def clone_module(module):
    # learn2learn.clone_module: a copy whose parameters are clones
    clone = module.__new__(type(module))
    clone.__dict__ = module.__dict__.copy()
    clone._parameters = {
        k: p.clone() for k, p in module._parameters.items()
    }
    clone._modules = {
        k: clone_module(m) for k, m in module._modules.items()
    }
    return clone


def adapt(learner, loss):
    # MAML.adapt, second order
    grads = torch.autograd.grad(
        loss, list(learner.parameters()), create_graph=True
    )
    update_module(learner, [-FAST_LR * g for g in grads])


class HypergradTransform(nn.Module):
    def __init__(self, param, lr=0.01):
        super().__init__()
        self.lr = nn.Parameter(torch.ones_like(param) * lr)

    def forward(self, grad):
        return self.lr * grad


class LearnableOptimizer(nn.Module):
    def __init__(self, model, transform, lr=1.0):
        super().__init__()
        self.info = {"model": model}
        self.transforms = nn.ModuleList(
            transform(p) for p in model.parameters()
        )
        self.lr = lr

    def step(self):
        model = self.info["model"]
        params = list(model.parameters())
        for param, transform in zip(params, self.transforms):
            if param.grad is not None:
                grad = param.grad.detach()
                update = -self.lr * transform(grad)
                param.detach_()
                param.requires_grad = False
                param.update = update
        update_module(model, [p.update for p in params])
        for param in model.parameters():
            param.retain_grad()

    def zero_grad(self):
        for p in self.info["model"].parameters():
            if p.grad is not None:
                p.grad = torch.zeros_like(p.data)


def task():
    centers = torch.randn(WAYS, DIM)
    y = torch.arange(WAYS).repeat(2 * SHOTS)
    x = centers[y] + 0.5 * torch.randn(len(y), DIM)
    half = WAYS * SHOTS
    return x[:half], y[:half], x[half:], y[half:]


maml = nn.Sequential(nn.Linear(DIM, 16), nn.ReLU(), nn.Linear(16, WAYS))
metaopt = LearnableOptimizer(maml, HypergradTransform, lr=HYPER_LR)
opt = torch.optim.SGD(metaopt.parameters(), META_LR)

for iteration in range(2):
    metaopt.zero_grad()
    opt.zero_grad()
    for t in range(2):
        xs, ys, xq, yq = task()
        learner = clone_module(maml)
        adapt(learner, F.cross_entropy(learner(xs), ys))
        evaluation_error = F.cross_entropy(learner(xq), yq)
        print(
            f"iteration {iteration}, task {t}: "
            f"error {evaluation_error.item():.4f}"
        )
        evaluation_error.backward()
    opt.step()
    metaopt.step()
