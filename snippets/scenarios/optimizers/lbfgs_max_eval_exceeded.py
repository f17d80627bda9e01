import torch
from torch import nn


def closure_calls(max_eval):
    torch.manual_seed(0)
    x = torch.randn(16, 3)
    y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3
    model = nn.Sequential(nn.Linear(3, 4), nn.Tanh(), nn.Linear(4, 1))
    opt = torch.optim.LBFGS(
        model.parameters(),
        max_eval=max_eval,
        line_search_fn="strong_wolfe",
    )
    calls = []

    def closure():
        calls.append(1)  # one call: one forward and one backward
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()
        return loss

    per_step = []
    for step in range(3):
        calls.clear()
        opt.step(closure)
        per_step.append(len(calls))
    return per_step


# Whether a step stops at max_eval or makes one call more turns on the
# last digits of the line search, which differ between CPUs: print the
# most a step made, which does not.
for max_eval in (3, 20):
    most = max(closure_calls(max_eval))
    print(
        f"max_eval={max_eval}: at most {most} closure calls in a step"
    )
