"""brief's Q-learning summarizer: the decoder states of each chunk of
generated words kept in a replay Storage with the encoder's graph,
and each chunk's TD loss backpropagated once the thread's question
takes retain_graph=True out.

Source: https://github.com/rentruewang/brief/issues/1
A reader asked why Q.py's optimization of G calls
loss.backward(retain_graph=True). The author answered that the graph
is made once while the loss comes from the difference at every step,
so without it the second backward fails; summing the losses into one
backward was the alternative.
Kept: train_one_batch's generation (the encoder run once on the
batch, the decoder's Q-function taking epsilon-greedy actions step
by step, each chunk's states [action, states, encoded] saved with
its actions and rewards, then Storage.optimize after every chunk),
Storage's multistep update (Q of the chunk's first state against
the summed reward plus the target net's best value at its last
state, Qoptim.zero_grad, backward, step) and short_reward; changed:
a GRU encoder and a GRU-cell decoder with a dueling head over 7
words, 2 chunks of 2 steps, no discriminator or reconstructor (the
reward is short_reward alone), the storage never decayed.
"""

import copy

import torch
from torch import nn

torch.manual_seed(0)
VOCAB, HIDDEN, BATCH, SRC_LEN = 7, 8, 3, 5
PAD, SOS, STEP, ALL_STEPS = 0, 1, 2, 4


class Dual(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.advantage = nn.Linear(in_features, out_features)
        self.average = nn.Linear(in_features, 1)

    def forward(self, x):
        advantage = self.advantage(x)
        advantage = advantage - advantage.mean()
        return advantage + self.average(x)


class QFunc(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HIDDEN)
        self.cell = nn.GRUCell(2 * HIDDEN, HIDDEN)
        self.head = Dual(HIDDEN, VOCAB)

    def forward(self, word, states, encoded):
        context = encoded.mean(0)
        inp = torch.cat([self.embed(word), context], -1)
        states = self.cell(inp, states)
        return self.head(states), states


class Generator(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HIDDEN)
        self.encoder = nn.GRU(HIDDEN, HIDDEN)
        self.QFunc = QFunc()

    def encode(self, batched_data, states):
        return self.encoder(self.embed(batched_data), states)


def select_value(q_output, index_list):
    return q_output.gather(1, index_list.unsqueeze(1)).squeeze(1)


def take_action(q_func, states, epsilon):
    output, states = q_func(*states)
    if torch.rand(()) < epsilon:
        index = torch.randint(0, VOCAB, (output.shape[0],))
    else:
        index = output.argmax(-1)
    return index, states


def short_reward(sentence, pad, s_reward):
    return (sentence == pad).float().sum(0) * s_reward


class Storage:
    def __init__(self):
        self.data = []

    def save(self, states, actions, rewards):
        self.data.append([states, actions, rewards])

    def optimize(self, q_func, q_optim, q_eval, q_loss_func):
        for S, action, reward in self.data:  # multistep
            output, _ = q_func(*S[0])
            q_value = select_value(output, action[0])
            q_next, _ = q_eval(*S[-1])
            q_next = q_next.max(-1)[0].detach()
            loss = q_loss_func(q_value, sum(reward) + q_next)
            q_optim.zero_grad()
            loss.backward()
            q_optim.step()


g_update = Generator()
g_target = copy.deepcopy(g_update)
g_optim = torch.optim.SGD(g_update.parameters(), lr=0.01)
storage = Storage()
batched_data = torch.randint(2, VOCAB, (SRC_LEN, BATCH))

states = torch.zeros(1, BATCH, HIDDEN)
encoded, states = g_update.encode(batched_data, states)
states = states[0]
word = torch.full((BATCH,), SOS)
shortened, current_step = [], 0
while current_step < ALL_STEPS:
    states_list, reward_list, action_list = [], [], []
    S = [word, states, encoded]
    states_list.append(S)
    for _ in range(STEP):
        action, states = take_action(g_update.QFunc, S, 0.1)
        S = [action, states, encoded]
        states_list.append(S)
        reward_list.append(torch.zeros(BATCH))
        action_list.append(action)
        shortened.append(action)
    word = action
    current_step += STEP
    if current_step >= ALL_STEPS:
        sentence = torch.stack(shortened)
        reward_list.append(short_reward(sentence, PAD, 0.1))
    storage.save(states_list, action_list, reward_list)
    print(f"chunk {len(storage.data)}: {len(storage.data)} in storage")
    storage.optimize(
        g_update.QFunc, g_optim, g_target.QFunc, nn.MSELoss()
    )
