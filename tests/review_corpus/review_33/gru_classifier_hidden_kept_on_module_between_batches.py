# source: written blind
#
# What it does: a GRU sequence classifier ("is the pattern 3-1-4 present in this token
# sequence?"). Each training batch holds 16 independent, unrelated sequences. The model
# has a learned initial hidden state `h0`. To avoid passing the hidden state around,
# the author keeps it on the module (`self.hidden`), initialised from h0 in
# reset_state(), which is called once before training; forward() starts from
# self.hidden and stores the final hidden state back into it.
# What the author intended: every batch is a fresh set of sequences, so every forward
# should start from the learned initial state h0 (and h0 should be trained). Instead
# the second batch starts from the first batch's final hidden state, which still holds
# the first batch's graph; that graph was freed by the first backward(), so the second
# backward() raises.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

VOCAB, EMB, HID, SEQ_LEN, BATCH, N_BATCHES, EPOCHS = 10, 16, 32, 12, 16, 4, 2
PATTERN = torch.tensor([3, 1, 4])


def make_dataset(n):
    x = torch.randint(0, VOCAB, (n, SEQ_LEN))
    y = torch.zeros(n, dtype=torch.long)
    for i in range(n):
        if torch.rand(1).item() < 0.5:
            start = torch.randint(0, SEQ_LEN - 3, (1,)).item()
            x[i, start : start + 3] = PATTERN
        windows = x[i].unfold(0, 3, 1)
        y[i] = int((windows == PATTERN).all(1).any())
    return x, y


class GRUClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, EMB)
        self.gru = nn.GRU(EMB, HID, batch_first=True)
        self.h0 = nn.Parameter(torch.zeros(1, 1, HID))
        self.head = nn.Linear(HID, 2)
        self.hidden = None

    def reset_state(self, batch_size):
        self.hidden = self.h0.expand(1, batch_size, HID).contiguous()

    def forward(self, tokens):
        out, self.hidden = self.gru(self.embed(tokens), self.hidden)
        return self.head(out[:, -1])


x_all, y_all = make_dataset(BATCH * N_BATCHES)
model = GRUClassifier()
optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)

model.reset_state(BATCH)
for epoch in range(EPOCHS):
    correct = 0
    for b in range(N_BATCHES):
        xb = x_all[b * BATCH : (b + 1) * BATCH]
        yb = y_all[b * BATCH : (b + 1) * BATCH]
        logits = model(xb)
        loss = F.cross_entropy(logits, yb)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        correct += (logits.argmax(1) == yb).sum().item()
    print(f"epoch {epoch}: loss={loss.item():.4f} acc={correct / (BATCH * N_BATCHES):.3f}")
