import torch
from torch import nn
from torch.distributions import Bernoulli

torch.manual_seed(0)
logits = nn.Parameter(torch.zeros(4))
opt = torch.optim.SGD([logits], lr=0.5)
wanted = torch.tensor([1.0, 0.0, 1.0, 1.0])

policy = Bernoulli(logits=logits)
for step in range(20):
    action = policy.sample()
    reward = (action == wanted).float()
    loss = -(policy.log_prob(action) * reward).sum()
    loss = loss - 0.01 * policy.entropy().sum()
    opt.zero_grad()
    loss.backward(retain_graph=True)  # silences the error
    opt.step()

# sample() and entropy() read the probs cached at step 0.
print("samples drawn with:", [f"{p:.2f}" for p in policy.probs])
learned = torch.sigmoid(logits)
print("the logits say:    ", [f"{p:.2f}" for p in learned])
