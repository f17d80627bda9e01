import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, D, N_PREFIX, N_CLASSES = 200, 32, 4, 3


class FrozenBackbone(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        layer = nn.TransformerEncoderLayer(D, nhead=4, dim_feedforward=64, batch_first=True, dropout=0.0)
        self.encoder = nn.TransformerEncoder(layer, num_layers=1)

    def forward(self, prefix, tokens):
        h = torch.cat([prefix.expand(tokens.size(0), -1, -1), self.embed(tokens)], dim=1)
        return self.encoder(h).mean(dim=1)


class PrefixEncoder(nn.Module):
    """P-tuning style: trainable prompt vectors re-parameterised through an MLP."""

    def __init__(self):
        super().__init__()
        self.prompt = nn.Parameter(torch.randn(N_PREFIX, D) * 0.02)
        self.mlp = nn.Sequential(nn.Linear(D, 64), nn.Tanh(), nn.Linear(64, D))

    def forward(self):
        return self.mlp(self.prompt).unsqueeze(0)


backbone = FrozenBackbone()
for p in backbone.parameters():
    p.requires_grad_(False)
prefix_encoder = PrefixEncoder()
classifier = nn.Linear(D, N_CLASSES)
optimizer = torch.optim.AdamW(list(prefix_encoder.parameters()) + list(classifier.parameters()), lr=5e-3)

tokens = torch.randint(0, VOCAB, (96, 12))
labels = (tokens[:, 0] % N_CLASSES)
accum_steps = 4
micro = 8

for step in range(3):
    optimizer.zero_grad()
    prefix = prefix_encoder().detach()
    running = 0.0
    for k in range(accum_steps):
        idx = torch.randint(0, tokens.size(0), (micro,))
        logits = classifier(backbone(prefix, tokens[idx]))
        loss = F.cross_entropy(logits, labels[idx]) / accum_steps
        loss.backward()
        running += loss.item()
    optimizer.step()
    print(f"step {step} loss {running:.4f}")
