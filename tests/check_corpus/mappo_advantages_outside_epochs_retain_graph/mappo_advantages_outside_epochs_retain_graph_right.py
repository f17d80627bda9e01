# A PPO update in the style of pymarl2's MAPPO learner: the critic's
# advantages are computed once per batch, then mini_epochs of clipped
# surrogate updates run over the same batch.
import torch
import torch.nn.functional as F
from torch import nn
from torch.distributions import Categorical

torch.manual_seed(0)
n_obs, n_act, T = 6, 3, 64
actor = nn.Sequential(
    nn.Linear(n_obs, 32), nn.Tanh(), nn.Linear(32, n_act)
)
critic = nn.Sequential(
    nn.Linear(n_obs, 32), nn.Tanh(), nn.Linear(32, 1)
)
opt = torch.optim.Adam(
    [*actor.parameters(), *critic.parameters()], lr=3e-3
)
clip, mini_epochs, gamma = 0.2, 4, 0.9


def rel(a, b):
    a = torch.cat([t.flatten() for t in a])
    b = torch.cat([t.flatten() for t in b])
    return ((a - b).norm() / b.norm()).item()


for batch in range(3):
    obs = torch.randn(T + 1, n_obs)
    with torch.no_grad():
        actions = Categorical(logits=actor(obs[:T])).sample()
        old_logp = Categorical(logits=actor(obs[:T])).log_prob(actions)
    rewards = obs[:T, 0] - 0.5 * (actions == 1).float()
    returns = rewards + gamma * obs[1:, 1]
    # the advantages and old log-probs belong to the batch: computed
    # once from the critic as it was, held fixed for all mini_epochs
    with torch.no_grad():
        adv = returns - critic(obs[:T]).squeeze(-1)
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    for epoch in range(mini_epochs):
        logp = Categorical(logits=actor(obs[:T])).log_prob(actions)
        ratio = (logp - old_logp).exp()
        clipped = ratio.clamp(1 - clip, 1 + clip)
        actor_loss = -torch.min(ratio * adv, clipped * adv).mean()
        values = critic(obs[:T]).squeeze(-1)
        critic_loss = 0.5 * F.mse_loss(values, returns)
        loss = actor_loss + critic_loss
        own = torch.autograd.grad(
            critic_loss, list(critic.parameters()), retain_graph=True
        )
        opt.zero_grad()
        loss.backward()
        d = rel([p.grad for p in critic.parameters()], own)
        print(
            f"batch {batch} epoch {epoch}: loss {loss.item():.4f}; "
            f"critic grad vs its own value loss's grad {d:.3f}, "
            f"ratio {ratio.mean().item():.4f}",
            flush=True,
        )
        opt.step()
