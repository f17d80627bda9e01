# Dreamer (juliusfrost/dreamer-pytorch, dreamer/algos/dreamer_algo.py):
# a world model, an actor trained through imagined rollouts of it, and
# a value model fit to the imagined lambda-returns, each with its own
# Adam. Reduced: deterministic latent states and random replay data.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
T, B, OBS, ACT, S, H = 6, 8, 5, 2, 8, 5
DISCOUNT, LAMBDA_ = 0.99, 0.95


def mlp(i, o):
    return nn.Sequential(nn.Linear(i, 32), nn.ELU(), nn.Linear(32, o))


observation_encoder = mlp(OBS, S)
representation = mlp(2 * S + ACT, S)
transition = mlp(S + ACT, S)
reward_model = mlp(S, 1)
observation_decoder = mlp(S, OBS)
action_decoder = mlp(S, ACT)
value_model = mlp(S, 1)


def get_parameters(modules):
    return [p for m in modules for p in m.parameters()]


model_modules = [observation_encoder, observation_decoder, reward_model,
                 representation, transition]
actor_modules = [action_decoder]
value_modules = [value_model]
# value_loss.backward() asked to backward through the graph a second
# time (actor_loss's backward had freed the imagined rollout): the
# value model now reads detached features and, as the losses were
# separated, gets its own optimizer
model_optimizer = torch.optim.Adam(get_parameters(model_modules), lr=6e-4)
actor_optimizer = torch.optim.Adam(get_parameters(actor_modules), lr=8e-5)
value_optimizer = torch.optim.Adam(get_parameters(model_modules), lr=8e-5)

replay_obs = torch.randn(4, T, B, OBS)
replay_act = torch.rand(4, T, B, ACT) * 2 - 1
replay_rew = -replay_obs.pow(2).mean(-1)
value_init = [p.detach().clone() for p in value_model.parameters()]


def compute_return(reward, value, discount, bootstrap, lambda_):
    next_values = torch.cat([value[1:], bootstrap[None]], 0)
    target = reward + discount * next_values * (1 - lambda_)
    acc, outputs = bootstrap, []
    for t in reversed(range(reward.shape[0])):
        acc = target[t] + discount[t] * lambda_ * acc
        outputs.append(acc)
    return torch.stack(outputs[::-1])


for itr in range(4):
    obs, act, rew = replay_obs[itr], replay_act[itr], replay_rew[itr]
    # world model: posterior states, reconstruction, reward, dynamics
    embed = observation_encoder(obs)
    state, prev_a, posts = torch.zeros(B, S), torch.zeros(B, ACT), []
    for t in range(T):
        state = torch.tanh(representation(torch.cat([embed[t], state, prev_a], -1)))
        posts.append(state)
        prev_a = act[t]
    post = torch.stack(posts)
    prior = torch.tanh(transition(torch.cat([post[:-1], act[:-1]], -1)))
    model_loss = (F.mse_loss(observation_decoder(post), obs)
                  + F.mse_loss(reward_model(post).squeeze(-1), rew)
                  + F.mse_loss(prior, post[1:].detach()))
    model_optimizer.zero_grad()
    model_loss.backward()
    model_optimizer.step()

    # actor: imagine H steps from the posterior states
    with torch.no_grad():
        flat_post = post.reshape(T * B, S)
    s, imag = flat_post, []
    for _ in range(H):
        a = torch.tanh(action_decoder(s))
        s = torch.tanh(transition(torch.cat([s, a], -1)))
        imag.append(s)
    imag_feat = torch.stack(imag)
    imag_reward = reward_model(imag_feat).squeeze(-1)
    value = value_model(imag_feat).squeeze(-1)
    discount_arr = DISCOUNT * torch.ones_like(imag_reward)
    returns = compute_return(imag_reward[:-1], value[:-1], discount_arr[:-1],
                             value[-1], LAMBDA_)
    discount_arr = torch.cat([torch.ones_like(discount_arr[:1]),
                              discount_arr[1:]])
    discount = torch.cumprod(discount_arr[:-1], 0)
    actor_loss = -torch.mean(discount * returns)
    actor_optimizer.zero_grad()
    actor_loss.backward()
    actor_optimizer.step()

    # value model on the imagined returns
    with torch.no_grad():
        value_feat = imag_feat[:-1].detach()
        value_discount = discount.detach()
        value_target = returns.detach()
    value_pred = value_model(value_feat).squeeze(-1)
    value_loss = torch.mean(value_discount * 0.5 * (value_pred - value_target) ** 2)
    value_optimizer.zero_grad()
    v_before = [None if p.grad is None else p.grad.clone()
                for p in value_model.parameters()]
    value_loss.backward()
    written = all(b is None or not torch.equal(b, p.grad)
                  for b, p in zip(v_before, value_model.parameters()))
    value_optimizer.step()

    moved = any(not torch.equal(p, p0)
                for p, p0 in zip(value_model.parameters(), value_init))
    print(f"itr {itr}: value_loss wrote value_model's grads: {written}; "
          f"value_model moved: {moved}")
held = {id(p) for g in value_optimizer.param_groups for p in g["params"]}
print("value_optimizer holds value_model's parameters:",
      all(id(p) in held for p in value_model.parameters()))
