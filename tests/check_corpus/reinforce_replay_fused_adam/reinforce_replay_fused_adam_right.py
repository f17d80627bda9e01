# pytorch/examples reinforce.py, with finish_episode() called several
# times per episode on random samples of the episode's steps.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
gamma = 0.99


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 64)
        self.affine2 = nn.Linear(64, 2)
        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        return F.softmax(self.affine2(F.relu(self.affine1(x))), dim=1)


def env_step(s, action):
    push = 0.1 if action == 1 else -0.1
    s = s + torch.tensor([0.02, push, 0.05 * s[3] + 0.02, push])
    return s, 1.0, bool(s[2].abs() > 1) or bool(s[0].abs() > 1)


model = Policy()
optimizer = torch.optim.Adam(
    model.parameters(), lr=1e-2, fused=True
)


def select_action(state):
    probs = model(state.unsqueeze(0))
    action = probs.multinomial(1)
    model.saved_actions.append((state.unsqueeze(0), action))
    return action.item()


def finish_episode(batch_size=8):
    R, returns = 0, []
    for r in model.rewards[::-1]:
        R = r + gamma * R
        returns.insert(0, R)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + 1e-7)
    idx = torch.randperm(len(returns))[:batch_size].tolist()
    states = torch.cat([model.saved_actions[i][0] for i in idx])
    actions = torch.cat([model.saved_actions[i][1] for i in idx])
    log_probs = torch.log(model(states).gather(1, actions)).squeeze(1)
    loss = (-log_probs * returns[idx]).sum()
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return loss.item()


for episode in range(3):
    state = 0.05 * torch.randn(4)
    for t in range(20):
        state, reward, done = env_step(state, select_action(state))
        model.rewards.append(reward)
        if done:
            break
    for k in range(3):
        loss = finish_episode()
    print(f"episode {episode}: last loss {loss:.3f}")
    del model.rewards[:]
    del model.saved_actions[:]
