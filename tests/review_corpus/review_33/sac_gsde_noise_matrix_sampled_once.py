# source: https://github.com/DLR-RM/stable-baselines3/commit/8e9802784c7f50f139382a716d37a768fb8b80c1
# (torchy-baselines, the predecessor of stable-baselines3; reduced from
#  torchy_baselines/sac/sac.py, sac/policies.py and common/distributions.py)
#
# What it does: Soft Actor-Critic with generalized State-Dependent Exploration (gSDE).
# The actor's exploration noise is latent_sde @ exploration_mat, where exploration_mat
# is a weight matrix drawn (reparametrised) from N(0, exp(log_std)), and log_std is a
# learned parameter of the actor. SAC does several gradient steps per environment step
# (gradient_steps > 1), each with a critic update and an actor update.
# What the author intended: the actor loss should train log_std through the noise
# matrix of the *current* log_std. The matrix was sampled once, in the distribution's
# constructor (proba_distribution_net -> sample_weights), and is reused by every
# gradient step; the first actor_loss.backward() frees the exp/rsample graph that links
# it to log_std, so the second gradient step raises.
import torch as th
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Normal

th.manual_seed(0)


class TanhBijector:
    def __init__(self, epsilon=1e-6):
        self.epsilon = epsilon

    def forward(self, x):
        return th.tanh(x)

    @staticmethod
    def inverse(y):
        eps = th.finfo(y.dtype).eps
        y = y.clamp(min=-1.0 + eps, max=1.0 - eps)
        return 0.5 * (y.log1p() - (-y).log1p())

    def log_prob_correction(self, x):
        return th.log(1.0 - th.tanh(x) ** 2 + self.epsilon)


class StateDependentNoiseDistribution:
    def __init__(self, action_dim, learn_features=False, epsilon=1e-6):
        self.action_dim = action_dim
        self.learn_features = learn_features
        self.epsilon = epsilon
        self.bijector = TanhBijector(epsilon)
        self.exploration_mat = None

    def get_std(self, log_std):
        return th.exp(log_std)

    def sample_weights(self, log_std):
        std = self.get_std(log_std)
        self.weights_dist = Normal(th.zeros_like(std), std)
        self.exploration_mat = self.weights_dist.rsample()

    def proba_distribution_net(self, latent_dim, log_std_init=-2.0):
        mean_actions_net = nn.Linear(latent_dim, self.action_dim)
        log_std = nn.Parameter(th.ones(latent_dim, self.action_dim) * log_std_init)
        # Sample an exploration matrix
        self.sample_weights(log_std)
        return mean_actions_net, log_std

    def proba_distribution(self, mean_actions, log_std, latent_sde):
        latent_sde = latent_sde if self.learn_features else latent_sde.detach()
        variance = th.mm(latent_sde**2, self.get_std(log_std) ** 2)
        self.distribution = Normal(mean_actions, th.sqrt(variance + self.epsilon))
        noise = th.mm(latent_sde, self.exploration_mat)
        return self.bijector.forward(self.distribution.mean + noise)

    def log_prob(self, action):
        gaussian_action = self.bijector.inverse(action)
        log_prob = self.distribution.log_prob(gaussian_action).sum(dim=1)
        log_prob -= th.sum(self.bijector.log_prob_correction(gaussian_action), dim=1)
        return log_prob


def create_mlp(input_dim, output_dim, net_arch):
    layers, last = [], input_dim
    for size in net_arch:
        layers += [nn.Linear(last, size), nn.ReLU()]
        last = size
    if output_dim > 0:
        layers.append(nn.Linear(last, output_dim))
    return layers


class Actor(nn.Module):
    def __init__(self, obs_dim, action_dim, net_arch, log_std_init=-3.0):
        super().__init__()
        self.actor_net = nn.Sequential(*create_mlp(obs_dim, -1, net_arch))
        self.action_dist = StateDependentNoiseDistribution(action_dim)
        self.mu, self.log_std = self.action_dist.proba_distribution_net(net_arch[-1], log_std_init)
        self.optimizer = th.optim.Adam(self.parameters(), lr=3e-4)

    def reset_noise(self):
        self.action_dist.sample_weights(self.log_std)

    def action_log_prob(self, obs):
        latent = self.actor_net(obs)
        action = self.action_dist.proba_distribution(self.mu(latent), self.log_std, latent)
        return action, self.action_dist.log_prob(action)


class Critic(nn.Module):
    def __init__(self, obs_dim, action_dim, net_arch):
        super().__init__()
        self.q1_net = nn.Sequential(*create_mlp(obs_dim + action_dim, 1, net_arch))
        self.q2_net = nn.Sequential(*create_mlp(obs_dim + action_dim, 1, net_arch))
        self.optimizer = th.optim.Adam(self.parameters(), lr=3e-4)

    def forward(self, obs, action):
        x = th.cat([obs, action], dim=1)
        return self.q1_net(x), self.q2_net(x)


class ReplayBuffer:
    def __init__(self, obs_dim, action_dim, size=256):
        self.obs = th.randn(size, obs_dim)
        self.actions = th.rand(size, action_dim) * 2 - 1
        self.next_obs = self.obs + 0.1 * th.randn(size, obs_dim)
        self.rewards = -(self.obs**2).sum(1, keepdim=True)
        self.dones = th.zeros(size, 1)

    def sample(self, batch_size):
        idx = th.randint(0, self.obs.shape[0], (batch_size,))
        return (
            self.obs[idx],
            self.actions[idx],
            self.next_obs[idx],
            self.dones[idx],
            self.rewards[idx],
        )


class SAC:
    def __init__(
        self, obs_dim=3, action_dim=1, net_arch=(64, 64), gamma=0.99, tau=0.005, ent_coef=0.1
    ):
        self.actor = Actor(obs_dim, action_dim, list(net_arch))
        self.critic = Critic(obs_dim, action_dim, list(net_arch))
        self.critic_target = Critic(obs_dim, action_dim, list(net_arch))
        self.critic_target.load_state_dict(self.critic.state_dict())
        self.replay_buffer = ReplayBuffer(obs_dim, action_dim)
        self.gamma, self.tau, self.ent_coef = gamma, tau, ent_coef
        self.use_sde = True

    def train(self, gradient_steps, batch_size=64):
        for gradient_step in range(gradient_steps):
            obs, action_batch, next_obs, done, reward = self.replay_buffer.sample(batch_size)

            # Action by the current actor for the sampled state
            action_pi, log_prob = self.actor.action_log_prob(obs)
            log_prob = log_prob.reshape(-1, 1)

            with th.no_grad():
                next_action, next_log_prob = self.actor.action_log_prob(next_obs)
                target_q1, target_q2 = self.critic_target(next_obs, next_action)
                target_q = reward + (1 - done) * self.gamma * th.min(target_q1, target_q2)
                q_backup = target_q - self.ent_coef * next_log_prob.reshape(-1, 1)

            current_q1, current_q2 = self.critic(obs, action_batch)
            critic_loss = 0.5 * (
                F.mse_loss(current_q1, q_backup) + F.mse_loss(current_q2, q_backup)
            )
            self.critic.optimizer.zero_grad()
            critic_loss.backward()
            self.critic.optimizer.step()

            qf1_pi, qf2_pi = self.critic(obs, action_pi)
            actor_loss = (self.ent_coef * log_prob - th.min(qf1_pi, qf2_pi)).mean()
            self.actor.optimizer.zero_grad()
            actor_loss.backward()
            self.actor.optimizer.step()

            with th.no_grad():
                for param, target_param in zip(
                    self.critic.parameters(), self.critic_target.parameters()
                ):
                    target_param.mul_(1 - self.tau).add_(self.tau * param)
        return actor_loss.item(), critic_loss.item()


model = SAC()
for update in range(3):
    actor_loss, critic_loss = model.train(gradient_steps=4)
    print(f"update {update}: actor_loss={actor_loss:.4f} critic_loss={critic_loss:.4f}")
