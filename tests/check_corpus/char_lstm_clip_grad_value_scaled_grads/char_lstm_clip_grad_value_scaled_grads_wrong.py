# A character LSTM language model moved to mixed precision
# (GradScaler, bf16 autocast on CPU) with the tutorial's
# clip_grad_value_(model.parameters(), 0.25) kept between
# scaler.scale(loss).backward() and scaler.step(optimizer): every
# element is clamped while still multiplied by the scaler's scale.
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import clip_grad_value_

torch.manual_seed(0)


class CharLM(nn.Module):
    def __init__(self, vocab=12, hidden=32):
        super().__init__()
        self.embed = nn.Embedding(vocab, 16)
        self.lstm = nn.LSTM(16, hidden, batch_first=True)
        self.head = nn.Linear(hidden, vocab)

    def forward(self, tokens):
        # oneDNN has no bf16 LSTM on every CPU (none on the AMD EPYC
        # this corpus runs on): the LSTM stays in float32.
        with torch.autocast("cpu", enabled=False):
            out, _ = self.lstm(self.embed(tokens).float())
        return self.head(out)


model = CharLM()
optimizer = torch.optim.SGD(model.parameters(), lr=2.0)
scaler = torch.amp.GradScaler("cpu")
print(f"scaler enabled {scaler.is_enabled()}, "
      f"scale {scaler.get_scale():.0f}")
text = torch.tensor([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5, 8] * 20)
starts = torch.randint(len(text) - 17, (10, 16))
for step in range(10):
    batch = torch.stack([text[s:s + 17] for s in starts[step]])
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(batch[:, :-1])
    loss = F.cross_entropy(logits.float().flatten(0, 1),
                           batch[:, 1:].flatten())
    scaler.scale(loss).backward()
    clip_grad_value_(model.parameters(), 0.25)
    scaler.step(optimizer)
    scaler.update()
    used = torch.cat([p.grad.flatten() for p in model.parameters()])
    print(f"step {step}: loss {loss.item():.4f}, largest gradient "
          f"element the step used {used.abs().max().item():.3g}")
