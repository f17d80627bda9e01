"""brief's Q-learning summarizer with a replay Storage that keeps
each chunk's source, start word and actions, the states made again
from the current parameters when the chunk is replayed.

Source: https://github.com/rentruewang/brief/issues/1
G's encoder learns only through these TD losses (Q.py's comment: S
carries information all the way back to encoder), so detaching the
stored states would leave it no gradient, and retain_graph=True
replays graphs of parameters the optimizer has since stepped. Kept as
data, the source and the actions taken let optimize() run the
encoder and the Q-function along the chunk again: each backward has
a graph of its own from the current weights.
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

    def optimize(self, gen, q_optim, q_eval, q_loss_func):
        for S, action, reward in self.data:  # multistep
            first, last = replay(gen, S)
            output, _ = gen.QFunc(*first)
            q_value = select_value(output, action[0])
            q_next, _ = q_eval(*last)
            q_next = q_next.max(-1)[0].detach()
            loss = q_loss_func(q_value, sum(reward) + q_next)
            q_optim.zero_grad()
            loss.backward()
            q_optim.step()


def replay(gen, S):
    # S = [source, start word, actions before the chunk, chunk actions]
    source, word, before, actions = S
    states = torch.zeros(1, BATCH, HIDDEN)
    encoded, states = gen.encode(source, states)
    states = states[0]
    for action in before:
        _, states = gen.QFunc(word, states, encoded)
        word = action
    first = [word, states, encoded]
    for action in actions:
        _, states = gen.QFunc(word, states, encoded)
        word = action
    return first, [word, states, encoded]


g_update = Generator()
g_target = copy.deepcopy(g_update)
g_optim = torch.optim.SGD(g_update.parameters(), lr=0.01)
storage = Storage()
batched_data = torch.randint(2, VOCAB, (SRC_LEN, BATCH))

states = torch.zeros(1, BATCH, HIDDEN)
encoded, states = g_update.encode(batched_data, states)
states = states[0]
word = torch.full((BATCH,), SOS)
start_word = word
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
    before = shortened[: len(shortened) - STEP]
    kept = [batched_data, start_word, before, action_list]
    storage.save(kept, action_list, reward_list)
    print(f"chunk {len(storage.data)}: {len(storage.data)} in storage")

    # reference for the first replayed chunk: a fresh forward
    ref = copy.deepcopy(g_update)
    S0, a0, r0 = storage.data[0]
    first, last = replay(ref, S0)
    out0, _ = ref.QFunc(*first)
    q_next0, _ = g_target.QFunc(*last)
    ref_loss = nn.MSELoss()(
        select_value(out0, a0[0]),
        sum(r0) + q_next0.max(-1)[0].detach(),
    )
    ref_loss.backward()

    grads = {}

    def keep_grads(_opt, _args, _kwargs, grads=grads):
        if not grads:
            for n, p in g_update.named_parameters():
                grads[n] = p.grad.clone()

    hook = g_optim.register_step_pre_hook(keep_grads)
    storage.optimize(g_update, g_optim, g_target.QFunc, nn.MSELoss())
    hook.remove()
    for name in ("encoder.weight_ih_l0", "QFunc.cell.weight_ih"):
        got = grads[name]
        want = dict(ref.named_parameters())[name].grad
        print(
            f"  {name}: |grad| {got.norm().item():.4f}, "
            f"matches fresh forward: {torch.allclose(got, want)}"
        )
