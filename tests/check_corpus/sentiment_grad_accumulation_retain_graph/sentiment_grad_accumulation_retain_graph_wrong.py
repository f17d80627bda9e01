import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, SEQ_LEN, N_DOCS = 500, 24, 640
POSITIVE = torch.arange(10, 40)
NEGATIVE = torch.arange(40, 70)


def make_corpus():
    tokens = torch.randint(70, VOCAB, (N_DOCS, SEQ_LEN))
    labels = torch.randint(0, 2, (N_DOCS,))
    for i in range(N_DOCS):
        pool = POSITIVE if labels[i] == 1 else NEGATIVE
        pos = torch.randperm(SEQ_LEN)[:4]
        tokens[i, pos] = pool[torch.randint(0, len(pool), (4,))]
    return tokens, labels


class TextClassifier(nn.Module):
    def __init__(self, dim=64):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, dim)
        self.convs = nn.ModuleList(nn.Conv1d(dim, 32, k, padding=k // 2) for k in (3, 5))
        self.dropout = nn.Dropout(0.2)
        self.cls = nn.Linear(64, 2)

    def forward(self, tokens):
        h = self.embed(tokens).transpose(1, 2)
        pooled = [F.relu(conv(h)).max(dim=2).values for conv in self.convs]
        return self.cls(self.dropout(torch.cat(pooled, dim=1)))


tokens, labels = make_corpus()
model = TextClassifier()
optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.01)
micro_bs, accum_steps = 16, 4

for epoch in range(2):
    model.train()
    accumulated = 0.0
    for step, i in enumerate(range(0, N_DOCS, micro_bs)):
        logits = model(tokens[i:i + micro_bs])
        loss = F.cross_entropy(logits, labels[i:i + micro_bs])
        accumulated = accumulated + loss / accum_steps
        accumulated.backward(retain_graph=True)
        if (step + 1) % accum_steps == 0:
            torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            optimizer.zero_grad()
            print(epoch, step, accumulated.item())
            accumulated = 0.0
