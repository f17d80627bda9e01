"""Sophia's Hessian estimate: the sampled-label loss built from the
training step's logits, after that step's backward and update.

Source: https://github.com/Liuhong99/Sophia/issues/1
The user wanted to train a network with SophiaG, which keeps an
exponential average of the Hessian diagonal: every k iterations the
loop draws labels from the model's own output distribution,
backpropagates the cross entropy against them and calls
optimizer.update_hessian(), which folds grad * grad into the
estimate. The error came at loss_sampled.backward(); the user wrote
that zero_grad(set_to_none=True) before the Hessian update had not
helped and that feeding the batch through the model again, in a
function of its own, made it run. The thread shows no code; the
sampled loss taking the training step's logits is reconstructed from
that account. Kept: SophiaG's step (weight decay, the momentum
average, the update clipped by rho * bs * hessian) and
update_hessian as released, and train_sophiag.py's order (forward,
backward, step(bs=...), zero_grad(set_to_none=True), then on the
Hessian iteration a Categorical sample of labels from the logits and
their cross entropy); changed: nanoGPT became a two-layer MLP over
8 tokens predicting the next of 11, random token batches, hess
interval 2, no gradient accumulation or scaler.
"""

import torch
import torch.nn.functional as F
from torch import nn
from torch.optim.optimizer import Optimizer

torch.manual_seed(0)


class SophiaG(Optimizer):
    def __init__(
        self,
        params,
        lr=1e-4,
        betas=(0.965, 0.99),
        rho=0.04,
        weight_decay=1e-1,
    ):
        defaults = dict(
            lr=lr, betas=betas, rho=rho, weight_decay=weight_decay
        )
        super().__init__(params, defaults)

    def _state(self, p):
        state = self.state[p]
        if len(state) == 0:
            state["step"] = torch.tensor(0.0)
            state["exp_avg"] = torch.zeros_like(p)
            state["hessian"] = torch.zeros_like(p)
        return state

    @torch.no_grad()
    def update_hessian(self):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self._state(p)
                state["hessian"].mul_(beta2).addcmul_(
                    p.grad, p.grad, value=1 - beta2
                )

    @torch.no_grad()
    def step(self, closure=None, bs=5120):
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self._state(p)
                state["step"] += 1
                p.mul_(1 - group["lr"] * group["weight_decay"])
                exp_avg = state["exp_avg"]
                exp_avg.mul_(beta1).add_(p.grad, alpha=1 - beta1)
                ratio = (
                    exp_avg.abs()
                    / (group["rho"] * bs * state["hessian"] + 1e-15)
                ).clamp(None, 1)
                p.addcmul_(exp_avg.sign(), ratio, value=-group["lr"])


class TinyLM(nn.Module):
    def __init__(self, vocab=11, block=8, dim=16):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.fc = nn.Linear(block * dim, dim)
        self.head = nn.Linear(dim, vocab)

    def forward(self, idx, targets=None):
        x = self.emb(idx).flatten(1)
        logits = self.head(torch.tanh(self.fc(x)))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits, targets)
        return logits, loss


def get_batch(batch_size=6):
    X = torch.randint(0, 11, (batch_size, 8))
    Y = torch.randint(0, 11, (batch_size,))
    return X, Y


model = TinyLM()
optimizer = SophiaG(model.parameters(), lr=1e-3, rho=0.03)
hess_interval = 2
total_bs = 6

for iter_num in range(3):
    X, Y = get_batch()
    logits, loss = model(X, Y)
    loss.backward()
    optimizer.step(bs=total_bs)
    optimizer.zero_grad(set_to_none=True)
    print(f"iter {iter_num}: loss {loss.item():.4f}")

    if iter_num % hess_interval == hess_interval - 1:
        # update the Hessian EMA from labels sampled from the model
        samp_dist = torch.distributions.Categorical(logits=logits)
        y_sample = samp_dist.sample()
        loss_sampled = F.cross_entropy(logits, y_sample)
        loss_sampled.backward()
        optimizer.update_hessian()
        optimizer.zero_grad(set_to_none=True)
        print(f"iter {iter_num}: hessian updated")
