# https://github.com/sigeisler/robustness_of_gnns_at_scale/issues/4
# The repository's GCN and its PR-BCD attack loop, in plain torch
# with a dense graph.
import torch
from torch import nn


class GCN(nn.Module):
    def __init__(self, n_features, n_classes, do_cache_adj_prep=True):
        super().__init__()
        self.lin1 = nn.Linear(n_features, 8)
        self.lin2 = nn.Linear(8, n_classes)
        self.do_cache_adj_prep = do_cache_adj_prep
        self.adj_preped = None

    def _cache_if_option_is_set(self, callable, *inputs):
        if self.training and self.adj_preped is not None:
            return self.adj_preped
        else:
            adj_preped = callable(*inputs)
        if self.training and self.do_cache_adj_prep:
            self.adj_preped = adj_preped
        return adj_preped

    @staticmethod
    def _normalize(adj):
        adj = adj + torch.eye(adj.shape[0])
        deg_inv_sqrt = adj.sum(1).pow(-0.5)
        return deg_inv_sqrt[:, None] * adj * deg_inv_sqrt[None, :]

    def forward(self, x, adj):
        adj = self._cache_if_option_is_set(self._normalize, adj)
        x = torch.relu(adj @ self.lin1(x))
        return adj @ self.lin2(x)


def grad_with_checkpoint(outputs, inputs):
    outputs.backward(retain_graph=True)  # the "fix": no error now
    return inputs.grad


torch.manual_seed(0)
n = 6
x, labels = torch.randn(n, 4), torch.randint(3, (n,))
adj = (torch.rand(n, n) > 0.5).float().triu(1)
adj = adj + adj.T
model = GCN(4, 3)
for p in model.parameters():
    p.requires_grad = False
model.train()  # the user's change, for their own loss

# Relaxed edge flips over the upper triangle (the search space).
rows, cols = torch.triu_indices(n, n, 1)
perturbed_edge_weight = torch.full((rows.numel(),), 0.1)
for epoch in range(3):
    perturbed_edge_weight.requires_grad = True
    flip = torch.zeros(n, n).index_put(
        (rows, cols), perturbed_edge_weight
    )
    flip = flip + flip.T
    modified_adj = adj + flip * (1 - 2 * adj)
    logits = model(x, modified_adj)
    loss = nn.functional.cross_entropy(logits, labels)
    gradient = grad_with_checkpoint(loss, perturbed_edge_weight)
    with torch.no_grad():
        model.eval()
        fresh = torch.allclose(logits, model(x, modified_adj))
        model.train()
    print(
        f"epoch {epoch}: loss {loss.item():.4f}, "
        f"grad is None: {gradient is None}, logits fresh: {fresh}"
    )
    if gradient is None:
        break
    with torch.no_grad():
        perturbed_edge_weight = perturbed_edge_weight + 20 * gradient
        perturbed_edge_weight = perturbed_edge_weight.clamp(0, 1)
