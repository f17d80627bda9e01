import torch
from torch import nn
from torch.distributions import Categorical

torch.manual_seed(0)
# A linear policy: its graph saves the states, never the weights,
# so optimizer.step() cannot trip the in-place check.
policy = nn.Linear(4, 2)
opt = torch.optim.Adam(policy.parameters(), lr=1e-2)

log_probs, rewards = [], []
for t in range(8):
    state = torch.randn(4)
    dist = Categorical(logits=policy(state))
    action = dist.sample()
    log_probs.append(dist.log_prob(action))
    rewards.append(float(action == (state[0] > 0)))

returns = torch.tensor(rewards)
advantages = returns - returns.mean()
weight_before = policy.weight.detach().clone()
grads = []

for epoch in range(3):
    opt.zero_grad()
    loss = -(torch.stack(log_probs) * advantages).mean()
    loss.backward(retain_graph=True)
    grads.append(policy.weight.grad.clone())
    opt.step()
    print(
        f"epoch {epoch}: loss = {loss.item():.4f}, same gradient as "
        f"epoch 0: {torch.equal(grads[-1], grads[0])}"
    )

moved = not torch.equal(policy.weight, weight_before)
print(f"the weights moved meanwhile: {moved}")
