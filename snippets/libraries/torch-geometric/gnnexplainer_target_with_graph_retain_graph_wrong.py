"""Source: https://github.com/pyg-team/pytorch_geometric/pull/5967

Library: torch-geometric 2.8.1, run unmodified. The pull request's
first answer, loss.backward(retain_graph=True) in GNNExplainer's loop,
done here by giving every backward that default. No error and the
same mask, but each epoch also backpropagates through the target's
graph into the model's parameters.
"""

import torch
from torch_geometric.explain import Explainer, GNNExplainer
from torch_geometric.nn import GCN

torch.manual_seed(0)
x = torch.randn(8, 3)
edge_index = torch.tensor(
    [
        [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7],
        [1, 0, 2, 1, 3, 2, 4, 3, 5, 4, 6, 5, 7, 6],
    ]
)
model = GCN(3, 4, num_layers=2, out_channels=1)


def explain(target):
    torch.manual_seed(1)
    model.zero_grad(set_to_none=True)
    explainer = Explainer(
        model=model,
        algorithm=GNNExplainer(epochs=3),
        explanation_type="phenomenon",
        node_mask_type="common_attributes",
        edge_mask_type=None,
        model_config=dict(
            mode="regression", task_level="node", return_type="raw"
        ),
    )
    mask = explainer(x, edge_index, target=target, index=2).node_mask
    return mask, [p.grad.clone() for p in model.parameters()]


with torch.no_grad():
    target_ref = model(x, edge_index)
mask_ref, grads_ref = explain(target_ref)

backward = torch.Tensor.backward


def backward_retaining(self, *args, **kwargs):
    kwargs.setdefault("retain_graph", True)
    return backward(self, *args, **kwargs)


torch.Tensor.backward = backward_retaining
mask, grads = explain(model(x, edge_index))  # the target with a graph
torch.Tensor.backward = backward

print(f"same node mask: {torch.allclose(mask, mask_ref)}")
same = all(map(torch.allclose, grads, grads_ref))
print(f"model .grad as with a no-grad target: {same}")
extra = sum((g - r).norm() for g, r in zip(grads, grads_ref))
print(f"gradient pushed through the target: {extra.item():.2f}")
