"""PR-BCD's attack on a GCN in training mode, the adjacency normalized
again at every attack step (do_cache_adj_prep=False).

Source: https://github.com/sigeisler/robustness_of_gnns_at_scale/issues/4
The user wanted the attack's gradient with respect to the perturbed
edge weights at every attack step, with the model in train() mode.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
NODES, FEATURES, CLASSES = 10, 5, 3


class GCNConv(nn.Module):
    """torch_geometric's GCNConv with normalize=False, reduced."""

    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_channels))

    def forward(self, x, edge_idx, edge_weight):
        x = self.lin(x)
        row, col = edge_idx
        messages = edge_weight[:, None] * x[row]
        out = x.new_zeros(x.shape).index_add(0, col, messages)
        return out + self.bias


class GCN(nn.Module):
    """The repository's GCN, reduced: do_cache_adj_prep=True."""

    def __init__(self, do_cache_adj_prep=True):
        super().__init__()
        self.do_cache_adj_prep = do_cache_adj_prep
        self.adj_preped = None
        self.conv1 = GCNConv(FEATURES, 8)
        self.conv2 = GCNConv(8, CLASSES)

    def forward(self, x, edge_idx, edge_weight):
        edge_idx, edge_weight = self._cache_if_option_is_set(
            self._convert_and_normalize, x, edge_idx, edge_weight
        )
        x = F.dropout(F.relu(self.conv1(x, edge_idx, edge_weight)), 0.5)
        return self.conv2(x, edge_idx, edge_weight)

    def _cache_if_option_is_set(self, callable, *inputs):
        if self.training and self.adj_preped is not None:
            return self.adj_preped
        adj_preped = callable(*inputs)
        if self.training and self.do_cache_adj_prep:
            self.adj_preped = adj_preped
        return adj_preped

    def _convert_and_normalize(self, x, edge_idx, edge_weight):
        num_nodes = x.shape[0]
        loops = torch.arange(num_nodes).repeat(2, 1)  # no loops yet
        edge_idx = torch.cat([edge_idx, loops], 1)
        edge_weight = torch.cat([edge_weight, torch.ones(num_nodes)])
        row, col = edge_idx
        deg = torch.zeros(num_nodes).index_add(0, col, edge_weight)
        deg_inv_sqrt = deg.pow(-0.5)
        edge_weight = deg_inv_sqrt[row] * edge_weight
        edge_weight = edge_weight * deg_inv_sqrt[col]
        return edge_idx, edge_weight


def grad_with_checkpoint(outputs, inputs):
    """The repository's utils.grad_with_checkpoint."""
    torch.autograd.backward(outputs)
    grad = inputs.grad.clone()
    inputs.grad.zero_()
    return grad


x = torch.randn(NODES, FEATURES)
labels = torch.randint(0, CLASSES, (NODES,))
# candidate edges: a ring that exists, and chords that do not
ring = torch.arange(NODES)
chords = torch.stack([ring, (ring + 3) % NODES])
edges = torch.stack([ring, (ring + 1) % NODES])
edge_idx = torch.cat([edges, chords], 1)
edge_idx = torch.cat([edge_idx, edge_idx.flip(0)], 1)
exists = torch.cat([torch.ones(NODES), torch.zeros(NODES)]).repeat(2)

# normalize the perturbed adjacency at every forward
attacked_model = GCN(do_cache_adj_prep=False)
attacked_model.train()  # the user's change
perturbed_edge_weight = torch.full(
    (len(exists),), 1e-3, requires_grad=True
)
for step in range(3):
    edge_weight = exists + perturbed_edge_weight * (1 - 2 * exists)
    logits = attacked_model(x, edge_idx, edge_weight)
    loss = F.cross_entropy(logits, labels)
    own = torch.autograd.grad(
        loss, perturbed_edge_weight, retain_graph=True
    )
    gradient = grad_with_checkpoint(loss, perturbed_edge_weight)
    with torch.no_grad():
        perturbed_edge_weight.add_(0.1 * gradient).clamp_(0, 1)
    print(
        f"step {step}: loss {loss.item():.4f}, "
        f"grad norm {gradient.norm():.4f}, "
        f"this step's graph: {torch.equal(gradient, own[0])}"
    )
