# DPO on a small causal LM with LoRA adapters, its blocks under activation
# checkpointing (use_reentrant=False). The reference model is the same
# network with the adapters' scale set to 0. The loop sets the scale for
# the policy forward and zeroes it for the reference forward, and sets it
# back only at the top of the next step: the backward's recomputation runs
# with scale 0, so the LoRA gradients are taken through hidden states the
# policy never had. Same operations, same shapes, no error.
import copy

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)


class LoraLinear(nn.Module):
    def __init__(self, d, r=4, alpha=8):
        super().__init__()
        self.base = nn.Linear(d, d)
        self.base.requires_grad_(False)
        self.lora_a = nn.Linear(d, r, bias=False)
        self.lora_b = nn.Linear(r, d, bias=False)
        nn.init.normal_(self.lora_b.weight, std=0.05)
        self.alpha, self.r = alpha, r
        self.scaling = alpha / r

    def forward(self, x):
        return self.base(x) + self.scaling * self.lora_b(self.lora_a(x))


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.proj = LoraLinear(d)

    def forward(self, h):
        return h + torch.tanh(self.proj(self.norm(h)))


class TinyLM(nn.Module):
    def __init__(self, vocab=30, d=16, n_blocks=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d).requires_grad_(False)
        self.blocks = nn.ModuleList(Block(d) for _ in range(n_blocks))
        self.lm_head = nn.Linear(d, vocab).requires_grad_(False)
        self.checkpointing = True

    def scale_adapters(self, scale):
        for m in self.modules():
            if isinstance(m, LoraLinear):
                m.scaling = scale * m.alpha / m.r

    def forward(self, ids):
        h = self.embed(ids)
        for block in self.blocks:
            h = checkpoint(block, h, use_reentrant=False) if self.checkpointing else block(h)
        return self.lm_head(h)


def sequence_logps(model, seqs):
    logits = model(seqs[:, :-1])
    logps = logits.log_softmax(-1).gather(-1, seqs[:, 1:, None]).squeeze(-1)
    return logps.sum(-1)


def dpo_loss(policy, ref, beta=0.1):
    margin = (policy[0] - ref[0]) - (policy[1] - ref[1])
    return -F.logsigmoid(beta * margin).mean()


def step_loss(model, pair):
    model.scale_adapters(1.0)
    policy = sequence_logps(model, pair).chunk(2)
    model.scale_adapters(0.0)
    with torch.no_grad():
        ref = sequence_logps(model, pair).chunk(2)
    return dpo_loss(policy, ref)


model = TinyLM()
trainable = [p for p in model.parameters() if p.requires_grad]
optimizer = torch.optim.AdamW(trainable, lr=1e-2)
chosen = torch.randint(0, 30, (6, 4, 9))
rejected = torch.randint(0, 30, (6, 4, 9))
for step in range(6):
    pair = torch.cat([chosen[step], rejected[step]])
    off = copy.deepcopy(model)
    off.checkpointing = False
    loss_off = step_loss(off, pair)
    want = torch.autograd.grad(loss_off, [p for p in off.parameters() if p.requires_grad])

    loss = step_loss(model, pair)
    optimizer.zero_grad()
    loss.backward()
    got = [p.grad for p in trainable]
    same = all(map(torch.allclose, got, want))
    err = max(((g - w).norm() / w.norm()).item() for g, w in zip(got, want))
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f}, grads = checkpointing off: "
          f"{same}, worst relative error {err:.3f}")
