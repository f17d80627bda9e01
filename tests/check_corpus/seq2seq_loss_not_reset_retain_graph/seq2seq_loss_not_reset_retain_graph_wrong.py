import torch
import torch.nn as nn

torch.manual_seed(0)

SRC_V, TGT_V, EMB, HID, SOS = 30, 30, 16, 32, 0


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(SRC_V, EMB)
        self.rnn = nn.GRU(EMB, HID, batch_first=True)

    def forward(self, src):
        _, h = self.rnn(self.emb(src))
        return h


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(TGT_V, EMB)
        self.cell = nn.GRUCell(EMB, HID)
        self.out = nn.Linear(HID, TGT_V)

    def forward(self, token, h):
        h = self.cell(self.emb(token), h)
        return self.out(h), h


# toy task: reverse the source sequence
src = torch.randint(1, SRC_V, (256, 7))
tgt = src.flip(1)

encoder, decoder = Encoder(), Decoder()
enc_opt = torch.optim.Adam(encoder.parameters(), lr=1e-3)
dec_opt = torch.optim.Adam(decoder.parameters(), lr=1e-3)
criterion = nn.CrossEntropyLoss()
batch_size = 32

loss = 0
for epoch in range(2):
    for b in range(0, 128, batch_size):
        s, t = src[b:b + batch_size], tgt[b:b + batch_size]
        enc_opt.zero_grad()
        dec_opt.zero_grad()
        h = encoder(s).squeeze(0)
        token = torch.full((s.size(0),), SOS, dtype=torch.long)
        for i in range(t.size(1)):
            logits, h = decoder(token, h)
            loss += criterion(logits, t[:, i])
            token = t[:, i]  # teacher forcing
        loss.backward(retain_graph=True)
        enc_opt.step()
        dec_opt.step()
        print(f"epoch {epoch} batch {b // batch_size} loss {loss.item() / t.size(1):.4f}")
