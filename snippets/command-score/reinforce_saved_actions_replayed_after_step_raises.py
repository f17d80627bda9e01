# https://github.com/pytorch/examples/issues/151
# A faithful reduction of pytorch/examples'
# reinforcement_learning/reinforce.py (2017): Policy, select_action,
# finish_episode; action.reinforce(r) + autograd.backward(saved_actions)
# no longer exist, so each saved action is kept as its log-probability;
# gym's CartPole is replaced by a tiny torch env.
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)
gamma = 0.99


class ToyCartPole:
    """4-dim state; action 1 pushes right, 0 left; the episode ends when
    the 'pole' leaves [-1, 1]."""

    def reset(self):
        self.s = 0.05 * torch.randn(4)
        return self.s.clone()

    def step(self, action):
        push = 0.1 if action == 1 else -0.1
        self.s = self.s + torch.tensor(
            [0.02, push, 0.05 * self.s[3] + 0.02, push]
        )
        done = bool(self.s[2].abs() > 1) or bool(self.s[0].abs() > 1)
        return self.s.clone(), 1.0, done, {}


class Policy(nn.Module):
    def __init__(self):
        super().__init__()
        self.affine1 = nn.Linear(4, 128)
        self.affine2 = nn.Linear(128, 2)

        self.saved_actions = []
        self.rewards = []

    def forward(self, x):
        x = F.relu(self.affine1(x))
        action_scores = self.affine2(x)
        return F.softmax(action_scores, dim=1)


env = ToyCartPole()
model = Policy()
optimizer = optim.Adam(model.parameters(), lr=1e-2)


def select_action(state):
    state = state.float().unsqueeze(0)
    probs = model(state)
    action = probs.multinomial(1)
    model.saved_actions.append(
        torch.log(probs.gather(1, action))
    )  # was: model.saved_actions.append(action)
    return action


def finish_episode(batch_size=16):
    # the user's change: "to store experience of policy gradient, i will
    # call finish_episode() more than once to random sample some
    # experiences"
    R = 0
    rewards = []
    for r in model.rewards[::-1]:
        R = r + gamma * R
        rewards.insert(0, R)
    rewards = torch.Tensor(rewards)
    rewards = (rewards - rewards.mean()) / (rewards.std() + 1e-7)
    idx = torch.randperm(len(model.saved_actions))[:batch_size].tolist()
    losses = [
        -model.saved_actions[i] * rewards[i] for i in idx
    ]  # was: action.reinforce(r)
    optimizer.zero_grad()
    # was: autograd.backward(model.saved_actions, [None ...])
    torch.stack(losses).sum().backward()
    optimizer.step()
    return len(idx)


for i_episode in range(1, 4):
    state = env.reset()
    for t in range(30):
        action = select_action(state)
        state, reward, done, _ = env.step(action.item())
        model.rewards.append(reward)
        if done:
            break
    # several updates from randomly sampled experiences of this episode
    for k in range(3):
        n = finish_episode()
        print(
            f"episode {i_episode}: "
            f"update {k} on {n} sampled steps of {len(model.rewards)}"
        )
    del model.rewards[:]
    del model.saved_actions[:]
