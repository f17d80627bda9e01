import torch
from torch import nn
from torch.nn.functional import cross_entropy

torch.manual_seed(0)
x = torch.randn(16, 4)
y = torch.randint(0, 3, (16,))
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)

for step in range(3):
    loss = cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()

    # A second forward for the estimate, at the weights step() made.
    logits = model(x)
    dist = torch.distributions.Categorical(logits=logits.detach())
    cross_entropy(logits, dist.sample()).backward()
    # Gauss-Newton-Bartlett: batch size times the squared gradient.
    h = [len(x) * p.grad**2 for p in model.parameters()]
    opt.zero_grad()
    h_sum = sum(t.sum() for t in h).item()
    print(f"step {step}: loss {loss.item():.4f}, sum of h {h_sum:.4f}")
