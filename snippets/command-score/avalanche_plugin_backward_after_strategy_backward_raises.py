"""An Avalanche plugin that takes its own backward pass on the
strategy's outputs after the strategy's backward (Avalanche before
its retain_graph flag).

Source: https://github.com/ContinualAI/avalanche/pull/1388
The user wanted plugins to run their own backward pass after the one
the strategy triggers, without running the forward pass again.
Kept: BaseSGDTemplate's training iteration (zero_grad, forward,
criterion, the before/after_backward plugin callbacks, backward,
optimizer step); changed: the pull request does not say what the
plugin computes, so here it accumulates a MAS-style importance (the
gradient of the outputs' squared norm) from strategy.mb_output; the
model is a small MLP on random data, one epoch of three batches.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class SupervisedTemplate:
    def __init__(self, model, optimizer, plugins):
        self.model, self.optimizer = model, optimizer
        self.plugins = plugins

    def _call(self, event):
        for plugin in self.plugins:
            getattr(plugin, event)(self)

    def backward(self):
        self.loss.backward()

    def training_epoch(self, loader):
        for self.mb_x, self.mb_y in loader:
            self.optimizer.zero_grad()
            self.loss = 0
            self.mb_output = self.model(self.mb_x)
            self.loss += F.cross_entropy(self.mb_output, self.mb_y)
            self._call("before_backward")
            self.backward()
            self._call("after_backward")
            self.optimizer.step()


class OutputImportancePlugin:
    def __init__(self, model):
        self.params = list(model.parameters())
        self.importance = [torch.zeros_like(p) for p in self.params]

    def before_backward(self, strategy):
        pass

    def after_backward(self, strategy):
        norm = strategy.mb_output.pow(2).sum()
        grads = torch.autograd.grad(norm, self.params)
        for imp, g in zip(self.importance, grads):
            imp += g.abs()
        total = sum(imp.sum() for imp in self.importance)
        print(
            f"loss {strategy.loss.item():.4f}, importance {total:.3f}"
        )


model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
plugin = OutputImportancePlugin(model)
strategy = SupervisedTemplate(
    model, torch.optim.SGD(model.parameters(), lr=0.1), [plugin]
)
loader = list(
    zip(
        torch.randn(24, 6).split(8), torch.randint(0, 3, (24,)).split(8)
    )
)
strategy.training_epoch(loader)
