# PPO fine-tuning of a tiny "language model" policy on a toy reward (trl-style train_minibatch loop).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, CTX, HID = 12, 6, 32


class PolicyWithValueHead(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(CTX * VOCAB, HID), nn.Tanh())
        self.lm_head = nn.Linear(HID, VOCAB)
        self.v_head = nn.Linear(HID, 1)

    def forward(self, ctx):
        h = self.body(F.one_hot(ctx, VOCAB).float().flatten(1))
        return self.lm_head(h), self.v_head(h).squeeze(-1)


def reward_fn(tokens):
    return (tokens % 3 == 0).float()


model = PolicyWithValueHead()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, fused=True)
BATCH, MB, PPO_EPOCHS, CLIP, VF_COEF = 16, 8, 2, 0.2, 0.5

step = 0
for rollout in range(2):
    queries = torch.randint(0, VOCAB, (BATCH, CTX))
    logits, values = model(queries)
    dist = torch.distributions.Categorical(logits=logits)
    responses = dist.sample()
    old_logprobs = dist.log_prob(responses)
    rewards = reward_fn(responses)
    advantages = rewards - values
    returns = rewards

    for epoch in range(PPO_EPOCHS):
        for start in range(0, BATCH, MB):
            idx = slice(start, start + MB)
            new_logits, vpred = model(queries[idx])
            logprob = torch.distributions.Categorical(logits=new_logits).log_prob(responses[idx])
            ratio = torch.exp(logprob - old_logprobs[idx])
            adv = advantages[idx]
            pg_loss = torch.max(-adv * ratio, -adv * torch.clamp(ratio, 1 - CLIP, 1 + CLIP)).mean()
            vf_loss = F.mse_loss(vpred, returns[idx])
            loss = pg_loss + VF_COEF * vf_loss
            optimizer.zero_grad()
            loss.backward(retain_graph=True)
            optimizer.step()
            print(f"step {step} rollout {rollout} epoch {epoch} loss {loss.item():.4f} mean_reward {rewards.mean().item():.3f}")
            step += 1
