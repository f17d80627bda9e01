"""DLRM's --plot-compute-graph: torchviz's make_dot run, after the
training loop, on the loss whose backward the loop has already run.

Source: https://github.com/facebookresearch/dlrm/issues/71
The user enabled the plot of the compute graph in dlrm_s_pytorch.py
(make_dot(V, params=dict(dlrm.named_parameters())) with V = E, the
last training loss) and got this error inside torchviz's add_nodes,
which reads the tensors each node saved. A maintainer answered: the
training loop's E.backward() frees them; make it
E.backward(retain_graph=True), so that make_dot can walk the graph.
Kept: DLRM_Net's forward as dlrm_s_pytorch.py has it (the bottom MLP
on the dense features, one EmbeddingBag in sum mode per sparse
feature, the dot interaction of their outputs through bmm, its lower
triangle concatenated with the bottom MLP's output, the top MLP with
a sigmoid), the mean-squared loss, the training loop (Z =
dlrm_wrap(X, lS_o, lS_i), E = loss_fn_wrap(Z, T), zero_grad,
E.backward(), step), the plot after the loop with V = E; changed:
torchviz is not installed here, so make_dot is reduced to its walk
over the graph (a node per grad_fn, one per tensor it saved, as
torchviz's saved-tensor nodes; the 0.0.1 the user ran read a node's
saved_tensors at the line that raised), a 4-3-2 bottom MLP, two
tables of 5 rows, a 5-4-1 top MLP, SGD at DLRM's default 0.01, three
batches of 4 random rows, seeded, a progress print.
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

# plot compute graph
V = E
dot = make_dot(V, params=dict(dlrm.named_parameters()))
print(f"graph: {len(dot[0])} nodes, {len(dot[1])} edges")
