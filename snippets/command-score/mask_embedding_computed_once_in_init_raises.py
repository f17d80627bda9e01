# https://github.com/hiyoung123/SoftMaskedBert/issues/16
# A faithful reduction of hiyoung123/SoftMaskedBert's SoftMaskedBert
# (self.mask_e = self.embedding(mask_token_id) in __init__,
# e_ = p * self.mask_e + (1-p) * e in forward), its BiGRU detector and
# SoftMaskedBertTrainer.iteration, with transformers' BertEmbeddings
# reduced to word + position + token-type embeddings, LayerNorm and
# dropout, bert.encoder to one encoder layer, and the trainer's
# loss.backward(retain_graph=True) written as loss.backward().
import torch
import torch.nn as nn

torch.manual_seed(0)

VOCAB, HIDDEN, MAX_LEN = 12, 8, 6
PAD_ID, CLS_ID, SEP_ID, MASK_ID = 0, 1, 2, 3


class BertEmbeddings(nn.Module):
    def __init__(self):
        super().__init__()
        self.word_embeddings = nn.Embedding(
            VOCAB, HIDDEN, padding_idx=PAD_ID
        )
        self.position_embeddings = nn.Embedding(MAX_LEN, HIDDEN)
        self.token_type_embeddings = nn.Embedding(2, HIDDEN)
        self.LayerNorm = nn.LayerNorm(HIDDEN, eps=1e-12)
        self.dropout = nn.Dropout(0.1)

    def forward(self, input_ids, token_type_ids=None):
        seq_length = input_ids.size(1)
        position_ids = (
            torch.arange(seq_length).unsqueeze(0).expand_as(input_ids)
        )
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        embeddings = (
            self.word_embeddings(input_ids)
            + self.position_embeddings(position_ids)
            + self.token_type_embeddings(token_type_ids)
        )
        return self.dropout(self.LayerNorm(embeddings))


class BiGRU(nn.Module):
    """decotor 使用 BiGRU"""

    def __init__(self, embedding_size, hidden, n_layers, dropout=0.0):
        super().__init__()
        self.rnn = nn.GRU(
            embedding_size,
            hidden,
            num_layers=n_layers,
            bidirectional=True,
            dropout=dropout,
            batch_first=True,
        )
        self.sigmoid = nn.Sigmoid()
        self.linear = nn.Linear(hidden * 2, 1)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.sigmoid(self.linear(out))


class SoftMaskedBert(nn.Module):
    def __init__(self, bert_embeddings, bert_encoder, hidden, layer_n):
        super().__init__()
        self.embedding = bert_embeddings
        embedding_size = HIDDEN
        self.detector = BiGRU(embedding_size, hidden, layer_n)
        self.corrector = bert_encoder
        mask_token_id = torch.tensor([[MASK_ID]])
        self.mask_e = self.embedding(mask_token_id)
        self.linear = nn.Linear(embedding_size, VOCAB)
        self.softmax = nn.LogSoftmax(dim=-1)

    def forward(self, input_ids, input_mask, segment_ids):
        e = self.embedding(
            input_ids=input_ids, token_type_ids=segment_ids
        )
        p = self.detector(e)
        e_ = p * self.mask_e + (1 - p) * e
        h = self.corrector(e_, src_key_padding_mask=input_mask == 0)
        h = h + e
        out = self.softmax(self.linear(h))
        return out, p


bert_embeddings = BertEmbeddings()
bert_encoder = nn.TransformerEncoderLayer(
    HIDDEN, 2, dim_feedforward=16, dropout=0.0, batch_first=True
)
model = SoftMaskedBert(
    bert_embeddings, bert_encoder, hidden=4, layer_n=1
)
optim = torch.optim.Adam(model.parameters(), lr=1e-2)
criterion_c = nn.NLLLoss()
criterion_d = nn.BCELoss()
gama = 0.8

# random_text: one character replaced; output_ids: the correct text;
# label: 1 where replaced
output_ids = torch.randint(4, VOCAB, (16, MAX_LEN))
input_ids = output_ids.clone()
label = torch.zeros(16, MAX_LEN, dtype=torch.long)
pos = torch.randint(1, MAX_LEN, (16,))
input_ids[torch.arange(16), pos] = torch.randint(4, VOCAB, (16,))
label[torch.arange(16), pos] = (
    input_ids[torch.arange(16), pos]
    != output_ids[torch.arange(16), pos]
).long()
dataset = [
    dict(
        input_ids=input_ids[i : i + 4],
        input_mask=torch.ones(4, MAX_LEN, dtype=torch.long),
        segment_ids=torch.zeros(4, MAX_LEN, dtype=torch.long),
        output_ids=output_ids[i : i + 4],
        label=label[i : i + 4],
    )
    for i in range(0, 16, 4)
]

model.train()
for epoch in range(3):
    avg_loss = 0.0
    for i, data in enumerate(dataset):
        out, prob = model(
            data["input_ids"], data["input_mask"], data["segment_ids"]
        )
        prob = prob.reshape(-1, prob.shape[1])
        loss_d = criterion_d(prob, data["label"].float())
        loss_c = criterion_c(out.transpose(1, 2), data["output_ids"])
        loss = gama * loss_c + (1 - gama) * loss_d

        optim.zero_grad()
        loss.backward()
        optim.step()
        avg_loss += loss.item()
        print(f"epoch {epoch} iter {i}: loss {loss.item():.3f}")
    print(f"EP{epoch}_train, avg_loss={avg_loss / len(dataset):.3f}")
