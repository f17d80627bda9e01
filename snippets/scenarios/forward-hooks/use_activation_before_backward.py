import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)

activations = {}


def save_output(module, args, output):
    activations["hidden"] = output  # attached: the penalty needs it


model[1].register_forward_hook(save_output)
w = model[0].weight

for step in range(3):
    x, y = torch.randn(8, 4), torch.randn(8, 2)
    task = nn.functional.mse_loss(model(x), y)
    # The hidden layer's activation penalty, from the same forward,
    # added before the one backward of this step.
    penalty = activations.pop("hidden").pow(2).mean()
    loss = task + 0.1 * penalty
    # For the check only: the gradient of the task loss alone.
    (task_only,) = torch.autograd.grad(task, w, retain_graph=True)
    loss.backward()
    changed = not torch.allclose(w.grad, task_only)
    opt.step()
    opt.zero_grad()
    print(
        f"step {step}: loss {loss.item():.4f}, "
        f"penalty reached the weights: {changed}"
    )
