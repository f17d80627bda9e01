"""Batched seq2seq: train() copies encoder outputs that an earlier
notebook cell computed, not this batch's.

Source: https://github.com/spro/practical-pytorch/issues/27
The user wanted to train the tutorial's GRU encoder and attention
decoder on batches, with teacher forcing and a masked loss.
"""

import random

import torch
import torch.nn.functional as F
from torch import nn, optim

torch.manual_seed(0)
random.seed(0)
MAX_LENGTH, BATCH, HIDDEN, VOCAB = 6, 4, 8, 10


class EncoderRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, HIDDEN)
        self.gru = nn.GRU(HIDDEN, HIDDEN)

    def forward(self, input, hidden):
        embedded = self.embedding(input).transpose(0, 1)
        return self.gru(embedded, hidden)

    def init_hidden(self):
        return torch.zeros(1, BATCH, HIDDEN)


class AttnDecoderRNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, HIDDEN)
        self.attn = nn.Linear(HIDDEN * 2, MAX_LENGTH)
        self.attn_combine = nn.Linear(HIDDEN * 2, HIDDEN)
        self.gru = nn.GRU(HIDDEN, HIDDEN)
        self.out = nn.Linear(HIDDEN, VOCAB)

    def forward(self, input, hidden, encoder_outputs):
        embedded = self.embedding(input).view(1, BATCH, -1)
        attn_weights = F.softmax(
            self.attn(torch.cat((embedded[0], hidden[0]), 1)), dim=1
        )
        attn_applied = torch.bmm(
            attn_weights.unsqueeze(1), encoder_outputs.transpose(1, 0)
        ).transpose(0, 1)
        output = torch.cat((embedded[0], attn_applied[0]), 1)
        output = F.relu(self.attn_combine(output).unsqueeze(0))
        output, hidden = self.gru(output, hidden)
        return F.log_softmax(self.out(output[0]), dim=1), hidden


def fake_batch():
    enc = torch.randint(3, VOCAB, (BATCH, MAX_LENGTH - 1))
    dec = torch.randint(3, VOCAB, (BATCH, 4))
    return enc, dec, torch.ones_like(dec)


encoder, decoder = EncoderRNN(), AttnDecoderRNN()

# An earlier cell: one batch through the encoder, to check the shapes.
sample_enc, _, _ = fake_batch()
output_from_encoder, _ = encoder(sample_enc, encoder.init_hidden())


def train(enc_sen, dec_sen, dec_mask, encoder_opt, decoder_opt):
    encoder_opt.zero_grad()
    decoder_opt.zero_grad()
    encoder_outputs, encoder_hidden = encoder(
        enc_sen, encoder.init_hidden()
    )
    encoder_outputs_for_decoder = torch.zeros(MAX_LENGTH, BATCH, HIDDEN)
    for i in range(output_from_encoder.size(0)):
        encoder_outputs_for_decoder[i] = output_from_encoder[i]
    decoder_input = torch.full((BATCH, 1), 2)
    decoder_hidden = encoder_hidden
    loss = 0
    for i in range(dec_sen.size(1)):  # teacher forcing
        output, decoder_hidden = decoder(
            decoder_input, decoder_hidden, encoder_outputs_for_decoder
        )
        target = dec_sen[:, i].view(-1, 1)
        word_loss = output.gather(1, target) * dec_mask[:, i].view(
            -1, 1
        )
        loss += -1 * word_loss.sum()
        decoder_input = target
    loss.backward()
    encoder_opt.step()
    decoder_opt.step()
    return loss.item() / dec_sen.size(1)


encoder_opt = optim.SGD(encoder.parameters(), lr=0.01)
decoder_opt = optim.SGD(decoder.parameters(), lr=0.01)
for it in range(3):
    loss = train(*fake_batch(), encoder_opt, decoder_opt)
    print(f"iter {it}: loss {loss:.3f}")
