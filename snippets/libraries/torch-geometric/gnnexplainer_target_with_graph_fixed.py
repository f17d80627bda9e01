"""Source: https://github.com/pyg-team/pytorch_geometric/pull/5967

Library: torch-geometric 2.8.1, run unmodified. The fix: compute the
target under torch.no_grad(). The explainer trains its node mask
against it, and the mask is the one explanation_type="model" gives.
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


def explain(explanation_type, target=None):
    torch.manual_seed(1)  # the same initial mask for both runs
    explainer = Explainer(
        model=model,
        algorithm=GNNExplainer(epochs=3),
        explanation_type=explanation_type,
        node_mask_type="common_attributes",
        edge_mask_type=None,
        model_config=dict(
            mode="regression", task_level="node", return_type="raw"
        ),
    )
    return explainer(x, edge_index, target=target, index=2)


# --8<-- [start:fix]
with torch.no_grad():
    target = model(x, edge_index)
explanation = explain("phenomenon", target=target)
# --8<-- [end:fix]
mask = explanation.node_mask
print(f"node mask trained: {bool(mask.abs().sum() > 0)}")
same = torch.allclose(mask, explain("model").node_mask)
print(f"same mask as explanation_type='model': {same}")
