# source: written blind
#
# What it does: a tiny home-grown Lightning-style training framework. A `Trainer`
# runs automatic optimisation: it calls module.training_step() under CPU bfloat16
# autocast, divides the loss by the number of accumulation micro-batches, calls
# backward on it, fires the `on_after_backward` callbacks (gradient-norm logging),
# and every ACCUM micro-batches clips, steps and zeroes the optimizer. The user's
# TextRegressor module was ported from an earlier manual-optimisation script and still
# calls self.manual_backward(loss) inside training_step().
# What the author intended: each micro-batch's loss is back-propagated exactly once
# and accumulated over ACCUM micro-batches before one optimizer step. With both the
# module and the trainer calling backward on the same loss, the trainer's backward is
# the second pass over an already freed graph and raises.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, DIM, SEQ, MICRO_BATCH, ACCUM, MAX_STEPS = 50, 32, 16, 8, 4, 3


class Callback:
    def on_after_backward(self, trainer, module):
        pass


class GradNormLogger(Callback):
    def on_after_backward(self, trainer, module):
        total = torch.sqrt(
            sum(p.grad.float().pow(2).sum() for p in module.parameters() if p.grad is not None)
        )
        trainer.logged.setdefault("grad_norm", []).append(total.item())


class TrainModule(nn.Module):
    trainer = None

    def manual_backward(self, loss):
        loss.backward()

    def configure_optimizers(self):
        raise NotImplementedError


class Trainer:
    def __init__(self, max_steps, accumulate_grad_batches=1, gradient_clip_val=None, callbacks=()):
        self.max_steps = max_steps
        self.accumulate = accumulate_grad_batches
        self.clip = gradient_clip_val
        self.callbacks = list(callbacks)
        self.logged = {}
        self.global_step = 0

    def fit(self, module, dataloader):
        module.trainer = self
        optimizer = module.configure_optimizers()
        optimizer.zero_grad()
        for batch_idx, batch in enumerate(dataloader):
            with torch.autocast("cpu", dtype=torch.bfloat16):
                loss = module.training_step(batch, batch_idx)
            loss = loss / self.accumulate
            loss.backward()
            for cb in self.callbacks:
                cb.on_after_backward(self, module)
            if (batch_idx + 1) % self.accumulate == 0:
                if self.clip is not None:
                    nn.utils.clip_grad_norm_(module.parameters(), self.clip)
                optimizer.step()
                optimizer.zero_grad()
                self.global_step += 1
                print(f"step {self.global_step}: loss={loss.item() * self.accumulate:.4f}")
                if self.global_step >= self.max_steps:
                    break


class TextRegressor(TrainModule):
    """Mean-pooled token embeddings + small transformer layer -> scalar score."""

    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, DIM)
        self.layer = nn.TransformerEncoderLayer(
            DIM, nhead=4, dim_feedforward=64, dropout=0.0, batch_first=True
        )
        self.head = nn.Linear(DIM, 1)

    def forward(self, tokens):
        h = self.layer(self.embed(tokens))
        return self.head(h.mean(1)).squeeze(-1)

    def training_step(self, batch, batch_idx):
        tokens, target = batch
        pred = self(tokens)
        loss = F.mse_loss(pred.float(), target)
        self.manual_backward(loss)  # left over from the manual-optimisation version
        return loss

    def configure_optimizers(self):
        return torch.optim.AdamW(self.parameters(), lr=1e-3, weight_decay=0.01)


def make_loader(n_batches):
    for _ in range(n_batches):
        tokens = torch.randint(0, VOCAB, (MICRO_BATCH, SEQ))
        target = (tokens < 10).float().mean(1)  # fraction of "special" tokens
        yield tokens, target


model = TextRegressor()
trainer = Trainer(
    max_steps=MAX_STEPS,
    accumulate_grad_batches=ACCUM,
    gradient_clip_val=1.0,
    callbacks=[GradNormLogger()],
)
trainer.fit(model, make_loader(MAX_STEPS * ACCUM))
print("logged grad norms:", [round(g, 4) for g in trainer.logged["grad_norm"]])
