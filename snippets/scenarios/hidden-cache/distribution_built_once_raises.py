import torch
from torch import nn
from torch.distributions import Bernoulli

torch.manual_seed(0)
# A policy over four on/off choices, learned directly as logits.
logits = nn.Parameter(torch.zeros(4))
opt = torch.optim.SGD([logits], lr=0.5)
wanted = torch.tensor([1.0, 0.0, 1.0, 1.0])

policy = Bernoulli(logits=logits)  # built once, before the loop
print(f"before the loop, probs cached: {'probs' in vars(policy)}")

for step in range(2):
    action = policy.sample()
    reward = (action == wanted).float()
    loss = -(policy.log_prob(action) * reward).sum()
    loss = loss - 0.01 * policy.entropy().sum()  # entropy bonus
    opt.zero_grad()
    loss.backward()
    opt.step()
    cached = vars(policy).get("probs")
    print(
        f"step {step}: loss = {loss.item():.4f}, "
        f"probs cached: {cached is not None} ({cached.grad_fn.name()})"
    )
