import torch
from torch import nn
from torch.nn.functional import cross_entropy

torch.manual_seed(0)
x = torch.randn(16, 4)
y = torch.randint(0, 3, (16,))
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
weight = model[2].weight  # saved by the graph, for the Tanh's grad

logits = model(x)
loss = cross_entropy(logits, y)
loss.backward(retain_graph=True)  # keep the graph for the estimate
before = weight._version
opt.step()  # updates every weight in place
opt.zero_grad()
print(f"last layer's weight: version {before} -> {weight._version}")

y_hat = torch.distributions.Categorical(logits=logits.detach()).sample()
cross_entropy(logits, y_hat).backward()
