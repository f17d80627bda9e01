# https://github.com/open-mmlab/mmcv/issues/1379
# mmcv's runner, OptimizerHook and GradientCumulativeOptimizerHook,
# reduced to plain torch; the config is the one from the issue.
import torch
from torch import nn


class OptimizerHook:
    def __init__(self, grad_clip=None):
        self.grad_clip = grad_clip

    def after_train_iter(self, runner):
        runner.optimizer.zero_grad()
        runner.outputs["loss"].backward()
        runner.optimizer.step()


class GradientCumulativeOptimizerHook(OptimizerHook):
    def __init__(self, grad_clip=None, cumulative_iters=1):
        super().__init__(grad_clip)
        self.cumulative_iters = cumulative_iters

    def after_train_iter(self, runner):
        loss = runner.outputs["loss"] / self.cumulative_iters
        loss.backward()
        if (runner.iter + 1) % self.cumulative_iters == 0:
            runner.optimizer.step()
            runner.optimizer.zero_grad()


HOOKS = {
    "OptimizerHook": OptimizerHook,
    "GradientCumulativeOptimizerHook": GradientCumulativeOptimizerHook,
}


def build_hook(cfg):
    cfg = dict(cfg)
    return HOOKS[cfg.pop("type", "OptimizerHook")](**cfg)


class Runner:
    def __init__(
        self, model, optimizer, optimizer_config, custom_hooks
    ):
        self.model, self.optimizer = model, optimizer
        # The optimizer hook comes first (priority ABOVE_NORMAL),
        # then the custom hooks (NORMAL).
        self.hooks = [build_hook(optimizer_config)]
        self.hooks += [build_hook(cfg) for cfg in custom_hooks]

    def train(self, batches):
        for self.iter, (x, y) in enumerate(batches):
            loss = nn.functional.mse_loss(self.model(x), y)
            self.outputs = {"loss": loss}
            print(f"iter {self.iter}: loss {loss.item():.4f}")
            for hook in self.hooks:
                hook.after_train_iter(self)


# From configs/_base_/schedules/schedule_1x.py and the user's config.
optimizer_config = dict(grad_clip=None)
custom_hooks = [
    dict(type="GradientCumulativeOptimizerHook", cumulative_iters=4),
]

torch.manual_seed(0)
model = nn.Linear(3, 1)
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
batches = [(torch.randn(2, 3), torch.randn(2, 1)) for _ in range(4)]
runner = Runner(model, optimizer, optimizer_config, custom_hooks)
runner.train(batches)
