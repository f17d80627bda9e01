"""Source: https://github.com/pyg-team/pytorch_geometric/pull/5967

Library: torch-geometric 2.8.1, run unmodified. The pull request's
test explains a regression GCN's prediction with GNNExplainer as a
"phenomenon", passing the model's own output as the target. What the
user wanted: a node mask for what drives the prediction at node 2.
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

target = model(x, edge_index)  # built with the model's graph
print(f"target has a graph: {target.grad_fn is not None}")

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
explanation = explainer(x, edge_index, target=target, index=2)
print(explanation.node_mask.shape)
