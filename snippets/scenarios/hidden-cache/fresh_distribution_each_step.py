import torch
from torch import nn
from torch.distributions import Bernoulli

torch.manual_seed(0)
logits = nn.Parameter(torch.zeros(4))
opt = torch.optim.SGD([logits], lr=0.5)
wanted = torch.tensor([1.0, 0.0, 1.0, 1.0])

# --8<-- [start:fix]
for step in range(3):
    # Built inside the step: its cached probs belong to this graph.
    policy = Bernoulli(logits=logits)
    action = policy.sample()
    reward = (action == wanted).float()
    loss = -(policy.log_prob(action) * reward).sum()
    loss = loss - 0.01 * policy.entropy().sum()
    opt.zero_grad()
    loss.backward()
    # --8<-- [end:fix]
    opt.step()
    print(f"step {step}: loss = {loss.item():.4f}")

probs = torch.sigmoid(logits).tolist()
print("probs after training:", [f"{p:.2f}" for p in probs])
