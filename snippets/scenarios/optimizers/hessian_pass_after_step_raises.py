import torch
from torch import nn
from torch.nn.functional import cross_entropy

torch.manual_seed(0)
x = torch.randn(16, 4)
y = torch.randint(0, 3, (16,))
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)

logits = model(x)
loss = cross_entropy(logits, y)
loss.backward()
opt.step()
opt.zero_grad()
print(f"training step done, loss = {loss.item():.4f}")

# Hessian diagonal estimate (Sophia's Gauss-Newton-Bartlett): the
# loss on labels sampled from the model's own predictions...
y_hat = torch.distributions.Categorical(logits=logits.detach()).sample()
# ...taken from the logits the training backward already went through.
cross_entropy(logits, y_hat).backward()
