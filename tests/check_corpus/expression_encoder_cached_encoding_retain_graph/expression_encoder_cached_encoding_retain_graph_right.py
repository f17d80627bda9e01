# https://github.com/shihui2010/symbolic_simplifier/issues/3
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)

VOCAB, EMB, HIDDEN = 12, 8, 16


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMB)
        self.lstm = nn.LSTM(EMB, HIDDEN)
        self.proj = nn.Linear(HIDDEN, HIDDEN)

    def forward(self, input_seq):
        rnn_outputs, (h, c) = self.lstm(self.embedding(input_seq))
        return self.proj(rnn_outputs), rnn_outputs, (h, c)


class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embedding = nn.Embedding(VOCAB, EMB)
        self.cell = nn.LSTMCell(EMB, HIDDEN)
        self.out = nn.Linear(HIDDEN, VOCAB)

    def forward(self, hs, yt):
        h, c = self.cell(self.embedding(yt), hs)
        return torch.log_softmax(self.out(h), dim=-1), (h, c)


class EncoderDecoder:
    def __init__(self, hps):
        self._hps = hps
        self.encoder, self.decoder = Encoder(), Decoder()
        self.encoder_optim = torch.optim.Adam(self.encoder.parameters(), lr=1e-3)
        self.decoder_optim = torch.optim.Adam(self.decoder.parameters(), lr=1e-3)
        self.__step = 0

    def __train(self, loss):
        self.encoder_optim.zero_grad()
        self.decoder_optim.zero_grad()
        loss.backward()
        res = [d.grad for d in self.decoder.parameters() if d.grad is not None and torch.any(torch.isnan(d.grad))]
        if len(res):
            return
        self.encoder_optim.step()
        self.decoder_optim.step()
        self.__step += 1

    def encode(self, input_seq, eos):
        encoder_outputs, rnn_outputs, hidden_states = self.encoder(input_seq)
        return encoder_outputs, rnn_outputs, hidden_states, input_seq

    def enforce_encoding(self, *, eos, s1=None, s2=None, encoded1=None, encoded2=None, positive: bool):
        encoder_outputs1 = self.encode(s1, eos)[2] if encoded1 is None else encoded1
        encoder_outputs2 = self.encode(s2, eos)[2] if encoded2 is None else encoded2
        loss = torch.nn.MSELoss()(encoder_outputs1[0][:self._hps["hidden_unit_split"]],
                                  encoder_outputs2[0][:self._hps["hidden_unit_split"]]) * self._hps["l2_weight"]
        self.__train(int(positive) * loss)
        return loss.item()

    def beam_tree(self, sample_input, max_len=5, num_res=3):
        _, _, hs, _ = self.encode(sample_input, None)
        hs = (hs[0][0], hs[1][0])
        results = []
        for _ in range(num_res):
            yt, log_prob, tokens, state = torch.zeros(1, dtype=torch.long), 0.0, [], hs
            for _ in range(max_len):
                logp, state = self.decoder(state, yt)
                yt = torch.multinomial(logp.exp(), 1).view(1)
                log_prob = log_prob + logp[0, yt.item()]
                tokens.append(yt.item())
            results.append((torch.tensor(tokens).view(-1, 1), log_prob))
        return results

    def tree_beam_search(self, sample_input, train, baseline=0.0):
        equivalence, unequals, rl_loss = [], [], 0
        bs_results = self.beam_tree(sample_input)
        prob_norm = torch.log(sum(torch.exp(item[1]) for item in bs_results))
        for output_tree, log_prob in bs_results:
            if output_tree.sum().item() % 3 == 0:
                equivalence.append(output_tree)
                rewd = 1.0
            else:
                unequals.append(output_tree)
                rewd = -0.1
            rl_loss -= (rewd - baseline) * (log_prob - prob_norm)
        if train:
            self.__train(rl_loss)
            if self._hps["l2_loss"]:
                eos = np.ones([1, 1]) * (VOCAB - 1)
                _, _, hidden_states, _ = self.encode(sample_input, eos)
                for e in equivalence:
                    e = e.clone()
                    self.enforce_encoding(s1=sample_input, s2=e, eos=eos, positive=True)
                for ne in unequals:
                    ne = ne.clone()
                    self.enforce_encoding(s1=sample_input, s2=ne, eos=eos, positive=False)
        return rl_loss.item(), len(equivalence), len(unequals)


model = EncoderDecoder({"hidden_unit_split": 8, "l2_weight": 1.0, "l2_loss": True})
dataset = [torch.randint(0, VOCAB, (7, 1)) for _ in range(4)]
for epoch in range(2):
    for sample_input in dataset:
        rl, n_eq, n_ne = model.tree_beam_search(sample_input, train=True)
        print(f"rl_loss {rl:.4f} equivalent {n_eq} unequal {n_ne}")
