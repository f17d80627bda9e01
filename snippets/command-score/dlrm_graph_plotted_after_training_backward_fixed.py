"""DLRM's --plot-compute-graph: torchviz's make_dot run, after the
training loop, on the loss of a forward made again for the plot.

Source: https://github.com/facebookresearch/dlrm/issues/71
The maintainer's answer, E.backward(retain_graph=True) in the loop,
is not enough on this reduction: the graph it keeps saved the
weights that optimizer.step() then changes in place, and reading
them ends in the in-place error. The plot needs a graph whose saved
tensors are still there and current: one more forward of the last
batch, after the loop, made for the plot.
Kept: the raising program's DLRM_Net, loss, loop and reduced
make_dot; changed: V is the loss of a new forward of the last batch
(Z_plot), and the prints check that the plot names every parameter
and that the loss node's saved input is that forward's output.
"""

import torch
from torch import nn

torch.manual_seed(0)


def make_dot(var, params=None):
    """torchviz's make_dot, reduced to its walk over the graph."""
    param_map = {id(v): k for k, v in (params or {}).items()}
    nodes, edges, seen = [], [], set()

    def add_nodes(fn):
        if fn in seen:
            return
        seen.add(fn)
        if hasattr(fn, "variable"):
            nodes.append(param_map.get(id(fn.variable), "?"))
        else:
            nodes.append(type(fn).__name__)
        for attr in dir(fn):
            if attr.startswith("_saved_"):
                val = getattr(fn, attr)
                if torch.is_tensor(val):
                    nodes.append(attr[len("_saved_") :])
        for u, _ in fn.next_functions:
            if u is not None:
                edges.append((type(u).__name__, type(fn).__name__))
                add_nodes(u)

    add_nodes(var.grad_fn)
    return nodes, edges


class DLRM_Net(nn.Module):
    def __init__(self, m_spa=2, ln_emb=(5, 5)):
        super().__init__()
        self.emb_l = nn.ModuleList(
            nn.EmbeddingBag(n, m_spa, mode="sum") for n in ln_emb
        )
        self.bot_l = nn.Sequential(
            nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, m_spa), nn.ReLU()
        )
        self.top_l = nn.Sequential(
            nn.Linear(5, 4), nn.ReLU(), nn.Linear(4, 1), nn.Sigmoid()
        )

    def apply_emb(self, lS_o, lS_i):
        ly = []
        for k, sparse_index_group_batch in enumerate(lS_i):
            sparse_offset_group_batch = lS_o[k]
            E = self.emb_l[k]
            V = E(sparse_index_group_batch, sparse_offset_group_batch)
            ly.append(V)
        return ly

    def interact_features(self, x, ly):
        (batch_size, d) = x.shape
        T = torch.cat([x] + ly, dim=1).view((batch_size, -1, d))
        Z = torch.bmm(T, torch.transpose(T, 1, 2))
        _, ni, nj = Z.shape
        li = torch.tensor([i for i in range(ni) for j in range(i)])
        lj = torch.tensor([j for i in range(nj) for j in range(i)])
        Zflat = Z[:, li, lj]
        return torch.cat([x] + [Zflat], dim=1)

    def forward(self, dense_x, lS_o, lS_i):
        x = self.bot_l(dense_x)
        ly = self.apply_emb(lS_o, lS_i)
        z = self.interact_features(x, ly)
        return self.top_l(z)


def make_batch(n=4):
    X = torch.rand(n, 4)
    lS_o = [torch.arange(n) for _ in range(2)]
    lS_i = [torch.randint(0, 5, (n,)) for _ in range(2)]
    T = torch.randint(0, 2, (n, 1)).float()
    return X, lS_o, lS_i, T


dlrm = DLRM_Net()
loss_fn = torch.nn.MSELoss(reduction="mean")
optimizer = torch.optim.SGD(dlrm.parameters(), lr=0.01)
train_ld = [make_batch() for _ in range(3)]

for j, (X, lS_o, lS_i, T) in enumerate(train_ld):
    Z = dlrm(X, lS_o, lS_i)  # dlrm_wrap
    E = loss_fn(Z, T)  # loss_fn_wrap
    optimizer.zero_grad()
    E.backward()
    optimizer.step()
    print(f"batch {j}: loss {E.item():.4f}")

# plot compute graph: a forward made for it
Z_plot = dlrm(X, lS_o, lS_i)
V = loss_fn(Z_plot, T)
dot = make_dot(V, params=dict(dlrm.named_parameters()))
print(f"graph: {len(dot[0])} nodes, {len(dot[1])} edges")
named = all(name in dot[0] for name, _ in dlrm.named_parameters())
print(f"every parameter in the plot: {named}")
saved_z = torch.equal(V.grad_fn._saved_self, Z_plot)
print(f"the loss node's saved input is the plotted Z: {saved_z}")
