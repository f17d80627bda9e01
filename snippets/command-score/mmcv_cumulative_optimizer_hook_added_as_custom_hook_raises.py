"""mmcv: GradientCumulativeOptimizerHook added as a custom hook, beside
the OptimizerHook that optimizer_config registers.

Source: https://github.com/open-mmlab/mmcv/issues/1379
The user wanted to train an mmdet detector with gradient accumulation
over 4 iterations (GradientCumulativeOptimizerHook, cumulative_iters=4).
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
PRIORITY = {"ABOVE_NORMAL": 40, "NORMAL": 50}


class OptimizerHook:
    def __init__(self, grad_clip=None):
        self.grad_clip = grad_clip  # None here: no clipping

    def after_train_iter(self, runner):
        runner.optimizer.zero_grad()
        runner.outputs["loss"].backward()
        runner.optimizer.step()


class GradientCumulativeOptimizerHook(OptimizerHook):
    def __init__(self, cumulative_iters=1, **kwargs):
        super().__init__(**kwargs)
        self.cumulative_iters = cumulative_iters
        self.initialized = False

    def after_train_iter(self, runner):
        if not self.initialized:
            residual_iters = runner.max_iters - runner.iter
            self.divisible_iters = (
                residual_iters
                // self.cumulative_iters
                * self.cumulative_iters
            )
            self.remainder_iters = residual_iters - self.divisible_iters
            self.initialized = True
        if runner.iter < self.divisible_iters:
            loss_factor = self.cumulative_iters
        else:
            loss_factor = self.remainder_iters
        loss = runner.outputs["loss"] / loss_factor
        loss.backward()
        if (runner.iter + 1) % self.cumulative_iters == 0:
            runner.optimizer.step()
            runner.optimizer.zero_grad()


class EpochBasedRunner:
    """mmcv's runner: train_step, then each hook's after_train_iter."""

    def __init__(self, model, optimizer, max_iters):
        self.model, self.optimizer = model, optimizer
        self.max_iters, self.iter, self._hooks = max_iters, 0, []

    def register_hook(self, hook, priority="NORMAL"):
        self._hooks.append((PRIORITY[priority], hook))
        self._hooks.sort(key=lambda h: h[0])

    def register_training_hooks(self, optimizer_config, custom_hooks):
        hook = optimizer_config.pop("type", OptimizerHook)
        self.register_hook(hook(**optimizer_config), "ABOVE_NORMAL")
        for custom in custom_hooks:
            self.register_hook(custom.pop("type")(**custom))

    def train(self, data_loader):
        for x, y in data_loader:
            loss = F.cross_entropy(self.model(x), y)
            self.outputs = {"loss": loss, "num_samples": len(x)}
            for _, hook in self._hooks:
                hook.after_train_iter(self)
            print(f"iter {self.iter}: loss {loss.item():.3f}")
            self.iter += 1


model = nn.Sequential(nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3))
data = [
    (torch.randn(2, 6), torch.randint(0, 3, (2,))) for _ in range(8)
]
runner = EpochBasedRunner(
    model, torch.optim.SGD(model.parameters(), lr=0.1), max_iters=8
)
optimizer_config = dict(grad_clip=None)  # from the base config
custom_hooks = [
    dict(type=GradientCumulativeOptimizerHook, cumulative_iters=4),
]
runner.register_training_hooks(optimizer_config, custom_hooks)
runner.train(data)
