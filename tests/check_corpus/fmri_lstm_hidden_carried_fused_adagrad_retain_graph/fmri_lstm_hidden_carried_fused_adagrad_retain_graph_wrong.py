# cnslab_fmri's LSTM keeps its hidden state in self.hidden from one
# sample to the next; the error was silenced with retain_graph=True.
import torch
from torch import nn

torch.manual_seed(0)


def graph_nodes(t):
    seen, stack = set(), [t.grad_fn]
    while stack:
        f = stack.pop()
        if f is None or f in seen:
            continue
        seen.add(f)
        stack.extend(g for g, _ in f.next_functions)
    return len(seen)


class fMRI_LSTM(nn.Module):
    def __init__(self, hidden_dim, input_dim, batch_size):
        super().__init__()
        self.hidden_dim, self.batch_size = hidden_dim, batch_size
        self.lstm = nn.LSTM(input_dim, hidden_dim, batch_first=True)
        self.linear = nn.Linear(hidden_dim, 1)
        self.hidden = self.init_hidden()

    def init_hidden(self):
        return (torch.randn(1, self.batch_size, self.hidden_dim),
                torch.randn(1, self.batch_size, self.hidden_dim))

    def forward(self, x, hidden):
        lstm_out, hidden = self.lstm(x, hidden)
        return torch.sigmoid(self.linear(lstm_out[:, -1, :])), hidden


model = fMRI_LSTM(hidden_dim=16, input_dim=22, batch_size=4)
optimizer = torch.optim.Adagrad(model.parameters(), lr=0.1, fused=True)
loss_function = nn.BCELoss()
windows = torch.randn(5, 4, 3, 22)  # 5 samples of 3 timesteps
labels = torch.randint(0, 2, (5, 4, 1)).float()
params = list(model.parameters())


def own_grad(x, y, hidden):
    # this window's loss alone, from the state it started with
    h0 = tuple(h.detach() for h in hidden)
    out, _ = model(x, h0)
    return torch.autograd.grad(loss_function(out, y), params)


model.train()
for i in range(5):
    start = model.hidden
    predicted_prob, model.hidden = model(windows[i], model.hidden)
    loss = loss_function(predicted_prob, labels[i])
    nodes = graph_nodes(loss)
    model.zero_grad()
    loss.backward(retain_graph=True)
    used = torch.cat([p.grad.flatten() for p in params])
    own = torch.cat([g.flatten() for g in own_grad(windows[i],
                                                   labels[i], start)])
    rel = ((used - own).norm() / own.norm()).item()
    optimizer.step()
    print(f"sample {i}: graph nodes {nodes}, grad vs this window's "
          f"own grad (relative) {rel:.3f}")
