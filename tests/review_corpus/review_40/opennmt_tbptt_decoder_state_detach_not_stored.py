# Source: https://github.com/OpenNMT/OpenNMT-py/issues/403
# Truncated BPTT over a long target: the decoder state (LSTM hidden + input_feed)
# is carried from one chunk to the next, and state.detach() is called between
# chunks. The PyTorch-0.4 port rewrote detach() as `h = h.detach()` on a loop
# variable, which returns new tensors but never stores them, so the carried state
# still points into the previous chunk's (already backwarded) graph.
import torch
from torch import nn

torch.manual_seed(0)


class RNNDecoderState:
    def __init__(self, hidden, input_feed):
        self.hidden = hidden  # (h, c)
        self.input_feed = input_feed

    @property
    def _all(self):
        return self.hidden + (self.input_feed,)

    def detach(self):
        for h in self._all:
            h = h.detach()  # rebinds the loop variable only


V, E, H, B, T, TRUNC = 20, 8, 16, 4, 24, 6
emb = nn.Embedding(V, E)
cell = nn.LSTMCell(E + H, H)
out = nn.Linear(H, V)
params = list(emb.parameters()) + list(cell.parameters()) + list(out.parameters())
opt = torch.optim.SGD(params, lr=0.5)
tgt = torch.randint(0, V, (T + 1, B))

state = RNNDecoderState((torch.zeros(B, H), torch.zeros(B, H)), torch.zeros(B, H))
for j in range(0, T, TRUNC):
    opt.zero_grad()
    h, c = state.hidden
    feed, loss = state.input_feed, 0.0
    for t in range(j, j + TRUNC):
        h, c = cell(torch.cat([emb(tgt[t]), feed], 1), (h, c))
        feed = h
        loss = loss + nn.functional.cross_entropy(out(h), tgt[t + 1])
    state = RNNDecoderState((h, c), feed)
    loss.backward()  # 2nd chunk: RuntimeError
    opt.step()
    state.detach()
    print("chunk", j // TRUNC, "loss", loss.item() / TRUNC)
