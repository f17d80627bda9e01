import torch
from torch import nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(3, 8), nn.ReLU())
head = nn.Linear(8, 1)
params = list(encoder.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=0.1)
x, y = torch.randn(16, 3), torch.randn(16, 1)

for step in range(3):
    opt.zero_grad()
    # Made in the step, from the weights as they are now: part of
    # the graph this step's backward runs, and frees.
    features = encoder(x)
    loss = nn.functional.mse_loss(head(features), y)
    loss.backward()
    with torch.no_grad():  # before step(): same weights as above
        fresh = torch.equal(features, encoder(x))
    opt.step()
    trains = all(p.grad.abs().sum() > 0 for p in params)
    print(
        f"step {step}: loss {loss.item():.4f}, "
        f"every .grad non-zero: {trains}, "
        f"features fresh: {fresh}"
    )
