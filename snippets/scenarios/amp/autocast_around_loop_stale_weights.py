import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.3)
x, y = torch.randn(16, 4), torch.randn(16, 1)


def loss_at_current_weights():
    # The same forward pass, casting the weights as they are now
    no_cache = torch.autocast(
        "cpu", dtype=torch.bfloat16, cache_enabled=False
    )
    with torch.no_grad(), no_cache:
        return nn.functional.mse_loss(model(x), y).item()


grads = []
with torch.autocast("cpu", dtype=torch.bfloat16):  # the whole loop
    for step in range(6):
        now = loss_at_current_weights()
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(x), y)
        loss.backward()  # no error
        opt.step()  # updates the float32 weights
        grads.append(model[0].weight.grad.clone())
        print(
            f"step {step}: loss {loss.item():.3f}, "
            f"at the current weights {now:.3f}"
        )
same = all(torch.equal(g, grads[0]) for g in grads)
print(f"the same gradient at every step: {same}")
