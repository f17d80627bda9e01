# Offline BC agent: a trajectory-embedding net feeds a policy head; a plan sampler learns
# to predict the trajectory embedding from the current state (updated every few steps).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
S, A, T, Z = 10, 4, 5, 8


class TrajEmbeddingNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(T * S, 32), nn.ReLU())
        self.head = nn.Linear(32, Z)

    def forward(self, traj):
        return self.head(self.encoder(traj.flatten(1)))


traj_net = TrajEmbeddingNet()
policy = nn.Sequential(nn.Linear(S + Z, 32), nn.ReLU(), nn.Linear(32, A))
sampler = nn.Sequential(nn.Linear(S, 32), nn.ReLU(), nn.Linear(32, Z))
traj_optim = torch.optim.Adam(traj_net.parameters(), lr=1e-3)
policy_optim = torch.optim.Adam(policy.parameters(), lr=1e-3)
sampler_optim = torch.optim.Adam(sampler.parameters(), lr=1e-3)
SAMPLER_EVERY = 3

states = torch.randn(64, S)
trajs = torch.randn(64, T, S)
actions = torch.randn(64, A)


def optimize(step, state, traj, action):
    z = traj_net(traj)
    policy_loss = F.mse_loss(policy(torch.cat([state, z], 1)), action)
    policy_optim.zero_grad()
    traj_optim.zero_grad()
    policy_loss.backward()
    policy_optim.step()
    traj_optim.step()
    print(f"step {step} policy_loss {policy_loss.item():.4f}")
    if step % SAMPLER_EVERY == SAMPLER_EVERY - 1:
        sampler_loss = F.mse_loss(sampler(state), z.detach())
        sampler_optim.zero_grad()
        sampler_loss.backward()
        sampler_optim.step()
        print(f"step {step} sampler_loss {sampler_loss.item():.4f}")


for step in range(6):
    idx = torch.randint(0, 64, (16,))
    optimize(step, states[idx], trajs[idx], actions[idx])
