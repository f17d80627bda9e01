"""Wrong fix in the repository: loss.backward(retain_graph=True).

Source: https://github.com/hiyoung123/SoftMaskedBert/issues/16
Tested with transformers 5.25.0 (BertModel's embeddings and encoder).
The user wanted to fine-tune the whole Soft-Masked BERT, BERT's
embeddings included, with its trainer's loop: one backward per batch.
"""

import torch
import torch.nn as nn
from transformers import BertConfig, BertModel

torch.manual_seed(0)
MASK_ID = 3  # tokenizer.mask_token_id


class BiGRU(nn.Module):
    def __init__(self, embedding_size, hidden, n_layers):
        super().__init__()
        self.rnn = nn.GRU(
            embedding_size,
            hidden,
            num_layers=n_layers,
            bidirectional=True,
            batch_first=True,
        )
        self.sigmoid = nn.Sigmoid()
        self.linear = nn.Linear(hidden * 2, 1)

    def forward(self, x):
        out, _ = self.rnn(x)
        return self.sigmoid(self.linear(out))


class SoftMaskedBert(nn.Module):
    def __init__(self, bert, hidden, layer_n):
        super().__init__()
        self.embedding = bert.embeddings
        self.config = bert.config
        size = self.config.hidden_size
        self.detector = BiGRU(size, hidden, layer_n)
        self.corrector = bert.encoder
        mask_token_id = torch.tensor([[MASK_ID]])
        self.mask_e = self.embedding(mask_token_id)
        self.linear = nn.Linear(size, self.config.vocab_size)
        self.softmax = nn.LogSoftmax(dim=-1)

    def forward(self, input_ids):
        e = self.embedding(input_ids)
        p = self.detector(e)
        e_ = p * self.mask_e + (1 - p) * e
        ones = torch.ones(input_ids.shape)
        extended_attention_mask = (1.0 - ones[:, None, None, :]) * -1e4
        h = self.corrector(e_, attention_mask=extended_attention_mask)
        h = h[0] + e
        return self.softmax(self.linear(h)), p


config = BertConfig(
    vocab_size=20,
    hidden_size=8,
    num_hidden_layers=1,
    num_attention_heads=2,
    intermediate_size=16,
    max_position_embeddings=8,
    hidden_dropout_prob=0.0,
    attention_probs_dropout_prob=0.0,
)
bert = BertModel(config)
model = SoftMaskedBert(bert, hidden=4, layer_n=1)
optim = torch.optim.Adam(model.parameters(), lr=1e-2)
criterion_c, criterion_d, gama = nn.NLLLoss(), nn.BCELoss(), 0.8

# origin_text, random_text (one character replaced) and label
origin_text = torch.randint(4, 20, (12, 6))
random_text = origin_text.clone()
random_text[torch.arange(12), torch.randint(1, 6, (12,))] = 4
label = (random_text != origin_text).float()

model.train()
for i in range(2):
    batch = slice(4 * i, 4 * i + 4)
    out, prob = model(random_text[batch])
    prob = prob.reshape(-1, prob.shape[1])
    loss_d = criterion_d(prob, label[batch])
    loss_c = criterion_c(out.transpose(1, 2), origin_text[batch])
    loss = gama * loss_c + (1 - gama) * loss_d
    optim.zero_grad()
    loss.backward(retain_graph=True)
    optim.step()
    print(f"iter {i}: loss {loss.item():.3f}")
