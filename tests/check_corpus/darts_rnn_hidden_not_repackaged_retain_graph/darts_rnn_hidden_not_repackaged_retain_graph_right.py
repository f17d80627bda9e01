# DARTS rnn/train_search.py with repackage_hidden doing its job on
# PyTorch 0.4+: the hidden state is detached at each batch.
import torch
from torch import nn

torch.manual_seed(0)
ntoken, ninp, nhid, bptt, bsz = 20, 8, 16, 5, 4


def graph_nodes(t):
    seen, stack = set(), [t.grad_fn]
    while stack:
        f = stack.pop()
        if f is None or f in seen:
            continue
        seen.add(f)
        stack.extend(g for g, _ in f.next_functions)
    return len(seen)


class DARTSCell(nn.Module):
    def __init__(self):
        super().__init__()
        self.W0 = nn.Parameter(torch.randn(ninp + nhid, 2 * nhid) * 0.1)
        self.Ws = nn.Parameter(torch.randn(nhid, 2 * nhid) * 0.1)
        self.alphas = torch.zeros(2)  # architecture weights, fixed here

    def forward(self, x, h):
        c, s = torch.cat([x, h], 1).mm(self.W0).chunk(2, 1)
        s0 = h + torch.sigmoid(c) * (torch.tanh(s) - h)
        c, s = s0.mm(self.Ws).chunk(2, 1)
        w = torch.softmax(self.alphas, 0)
        ops = w[0] * torch.tanh(s) + w[1] * torch.relu(s)
        return s0 + torch.sigmoid(c) * (ops - s0)


class RNNModelSearch(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Embedding(ntoken, ninp)
        self.cell = DARTSCell()
        self.decoder = nn.Linear(nhid, ntoken)

    def forward(self, inp, hidden):
        outputs = []
        for t in range(inp.size(0)):
            hidden = self.cell(self.encoder(inp[t]), hidden)
            outputs.append(hidden)
        return self.decoder(torch.stack(outputs)), hidden


model = RNNModelSearch()
optimizer = torch.optim.SGD(
    model.parameters(), lr=0.5, weight_decay=5e-7
)
data = torch.randint(ntoken, (bptt * 4 + 1, bsz))
hidden = torch.zeros(bsz, nhid)
model.train()


def repackage_hidden(h):
    if isinstance(h, torch.Tensor):
        return h.detach()
    return tuple(repackage_hidden(v) for v in h)


for batch, i in enumerate(range(0, bptt * 4, bptt)):
    inp, targets = data[i : i + bptt], data[i + 1 : i + 1 + bptt]
    hidden = repackage_hidden(hidden)
    log_prob, hidden = model(inp, hidden)
    loss = nn.functional.cross_entropy(
        log_prob.view(-1, ntoken), targets.reshape(-1)
    )
    print(f"batch {batch}: graph nodes {graph_nodes(loss)}")
    optimizer.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 0.25)
    optimizer.step()
    trained = all(p.grad is not None for p in model.parameters())
    print(f"batch {batch}: loss {loss.item():.3f}, all params have "
          f"grads {trained}")
