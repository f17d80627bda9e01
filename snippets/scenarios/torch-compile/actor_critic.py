import torch
from torch import nn


class ActorCritic(nn.Module):
    """Separate policy and value networks, called as one module."""

    def __init__(self):
        super().__init__()
        self.actor = nn.Sequential(
            nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2)
        )
        self.critic = nn.Sequential(
            nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 1)
        )

    def forward(self, obs):
        return self.actor(obs), self.critic(obs).squeeze(1)


def rollout():
    """A fake batch: observations, actions taken, returns."""
    obs = torch.randn(32, 4)
    return obs, torch.randint(0, 2, (32,)), torch.randn(32)


def losses(model, obs, actions, returns):
    logits, value = model(obs)
    advantage = (returns - value).detach()
    log_prob = torch.log_softmax(logits, dim=1)
    taken = log_prob.gather(1, actions[:, None]).squeeze(1)
    policy_loss = -(taken * advantage).mean()
    value_loss = (returns - value).pow(2).mean()
    return policy_loss, value_loss


if __name__ == "__main__":
    torch.manual_seed(0)
    model = ActorCritic()
    policy_loss, value_loss = losses(model, *rollout())
    actor, critic = model.actor.parameters(), model.critic.parameters()
    shared = set(actor) & set(critic)
    print(
        f"policy loss {policy_loss.item():.4f}, "
        f"value loss {value_loss.item():.4f}"
    )
    print(f"parameters shared by actor and critic: {len(shared)}")
