# A BERT-style encoder (d2l's) with a learnable positional embedding:
# the normalised position table is built in forward, for each batch,
# under bf16 autocast; the loss is logged through loss.detach().
import torch
from torch import nn

torch.manual_seed(0)


class BERTEncoder(nn.Module):
    def __init__(self, vocab, dim, max_len):
        super().__init__()
        self.token = nn.Embedding(vocab, dim)
        self.pos_embedding = nn.Parameter(torch.randn(1, max_len, dim))
        self.pos_norm = nn.LayerNorm(dim)
        self.block = nn.TransformerEncoderLayer(
            dim, 2, 32, dropout=0.0, batch_first=True)
        self.mlm = nn.Linear(dim, vocab)

    def forward(self, tokens):
        pos = self.pos_norm(self.pos_embedding)
        x = self.token(tokens) + pos[:, : tokens.shape[1]]
        return self.mlm(self.block(x))


model = BERTEncoder(vocab=20, dim=16, max_len=12)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
tokens = torch.randint(20, (5, 8, 10))
targets = tokens.roll(1, dims=-1)
before = model.pos_embedding.detach().clone()
running = torch.zeros(())
for step in range(5):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        logits = model(tokens[step])
    loss = nn.functional.cross_entropy(
        logits.float().flatten(0, 1), targets[step].flatten())
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    running += loss.detach()
    none = [n for n, p in model.named_parameters() if p.grad is None]
    print(f"step {step}: loss {loss.item():.3f}, params with grad "
          f"None: {none}")
moved = (model.pos_embedding - before).abs().max().item()
print(f"mean loss {running.item() / 5:.3f}; pos_embedding largest "
      f"change: {moved:.4f}")
