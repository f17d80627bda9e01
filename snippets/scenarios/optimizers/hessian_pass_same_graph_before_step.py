import torch
from torch import nn
from torch.nn.functional import cross_entropy

torch.manual_seed(0)
x = torch.randn(16, 4)
y = torch.randint(0, 3, (16,))
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
params = list(model.parameters())

for step in range(3):
    logits = model(x)
    loss = cross_entropy(logits, y)
    dist = torch.distributions.Categorical(logits=logits.detach())
    loss_hat = cross_entropy(logits, dist.sample())
    # Both gradients from one graph, before anything changes the
    # weights: keep the graph for the second call only.
    grads = torch.autograd.grad(loss, params, retain_graph=True)
    grads_hat = torch.autograd.grad(loss_hat, params)
    h = [len(x) * g**2 for g in grads_hat]
    for p, g in zip(params, grads):
        p.grad = g
    opt.step()  # the graph is gone by now
    opt.zero_grad()
    h_sum = sum(t.sum() for t in h).item()
    print(f"step {step}: loss {loss.item():.4f}, sum of h {h_sum:.4f}")
