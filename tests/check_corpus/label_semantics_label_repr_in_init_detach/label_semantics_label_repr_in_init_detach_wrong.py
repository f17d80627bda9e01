# LabelSemantics NER (token and label representations from two
# encoders): the label representation made once in __init__ raised the
# in-place error at the second step; the thread's fix was .detach().
import torch
from torch import nn

torch.manual_seed(0)
vocab, dim, num_labels = 50, 16, 4


class Encoder(nn.Module):  # stands in for a BERT encoder
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.layer = nn.Sequential(nn.Linear(dim, dim), nn.Tanh())

    def forward(self, ids):
        return self.layer(self.emb(ids))


class LabelSemanticsNER(nn.Module):
    def __init__(self, label_ids):
        super().__init__()
        self.token_encoder = Encoder()
        self.label_encoder = Encoder()
        self.label_representation = (
            self.label_encoder(label_ids).mean(1).detach()
        )

    def forward(self, ids):
        token_repr = self.token_encoder(ids)
        return token_repr @ self.label_representation.T


model = LabelSemanticsNER(torch.randint(vocab, (num_labels, 3)))
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-3)
scheduler = torch.optim.lr_scheduler.LambdaLR(
    optimizer, lambda s: min(1.0, (s + 1) / 3)
)
tokens = torch.randint(vocab, (4, 8, 10))
tags = torch.randint(num_labels, (4, 8, 10))
before = [p.detach().clone() for p in model.label_encoder.parameters()]
for step in range(4):
    model.train()
    logits = model(tokens[step])
    loss = nn.functional.cross_entropy(
        logits.reshape(-1, num_labels), tags[step].reshape(-1)
    )
    optimizer.zero_grad()
    loss.backward()
    none = [n for n, p in model.label_encoder.named_parameters()
            if p.grad is None]
    optimizer.step()
    scheduler.step()
    model.eval()
    with torch.no_grad():
        acc = (model(tokens[0]).argmax(-1) == tags[0]).float().mean()
    print(f"step {step}: loss {loss.item():.3f}, eval acc {acc:.3f}, "
          f"label_encoder params with grad None: {len(none)} of "
          f"{len(before)}")
moved = max((p - b).abs().max().item() for p, b in
            zip(model.label_encoder.parameters(), before))
print(f"label_encoder largest weight change: {moved:.4f}")
