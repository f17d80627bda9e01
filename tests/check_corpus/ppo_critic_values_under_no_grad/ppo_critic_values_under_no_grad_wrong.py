# Written case: PPO with several minibatch epochs over one rollout. The critic's values were
# computed once at rollout time and reused in every minibatch's value loss, so the second
# backward hit the freed critic graph. Wrong fix: compute the rollout values under no_grad.
import torch
import torch.nn as nn

torch.manual_seed(0)
S, A, T = 4, 3, 64
actor = nn.Sequential(nn.Linear(S, 32), nn.Tanh(), nn.Linear(32, A))
critic = nn.Sequential(nn.Linear(S, 32), nn.Tanh(), nn.Linear(32, 1))
opt = torch.optim.Adam([*actor.parameters(), *critic.parameters()], lr=3e-3)
w_true = torch.randn(S, A)

for iteration in range(15):
    states = torch.randn(T, S)
    with torch.no_grad():
        dist = torch.distributions.Categorical(logits=actor(states))
        actions = dist.sample()
        old_logp = dist.log_prob(actions)
    rewards = (states @ w_true).gather(1, actions[:, None]).squeeze(1)
    returns = rewards + 0.5 * states[:, 0]
    with torch.no_grad():
        values = critic(states).squeeze(-1)
    adv = returns - values
    adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    for epoch in range(4):
        for mb in torch.randperm(T).split(16):
            logp = torch.distributions.Categorical(logits=actor(states[mb])).log_prob(actions[mb])
            ratio = torch.exp(logp - old_logp[mb])
            policy_loss = -torch.min(ratio * adv[mb], ratio.clamp(0.8, 1.2) * adv[mb]).mean()
            value_loss = (returns[mb] - values[mb]).pow(2).mean()
            loss = policy_loss + 0.5 * value_loss
            opt.zero_grad()
            loss.backward()
            opt.step()
print(f"final value_loss {value_loss.item():.4f} policy_loss {policy_loss.item():.4f}")
