"""shap's DeepExplainer on a model with two inputs: every grad() call
but the last keeps the graph, as the pull request made it.

Source: https://github.com/shap/shap/pull/684
The user wanted SHAP values from DeepExplainer for a PyTorch model
that takes two inputs (here an image-like and a tabular input).
"""

import torch
from torch import nn

torch.manual_seed(0)


class TwoInputModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(5, 4)
        self.b = nn.Linear(3, 4)
        self.head = nn.Linear(4, 2)

    def forward(self, x_a, x_b):
        return self.head(torch.tanh(self.a(x_a) + self.b(x_b)))


class PyTorchDeep:
    """DeepExplainer's PyTorch gradient(), after the pull request."""

    def __init__(self, model):
        self.model = model

    def gradient(self, idx, inputs):
        self.model.zero_grad()
        X = [x.requires_grad_() for x in inputs]
        outputs = self.model(*X)
        selected = [val for val in outputs[:, idx]]
        grads = []
        for i, x in enumerate(X):
            grad = torch.autograd.grad(
                selected,
                x,
                retain_graph=True if i + 1 < len(X) else None,
            )[0]
            grads.append(grad.cpu().numpy())
        return grads


explainer = PyTorchDeep(TwoInputModel())
inputs = [torch.randn(6, 5), torch.randn(6, 3)]
model = explainer.model
for idx in range(2):
    grads = explainer.gradient(idx, inputs)
    # the same gradients, each input's from a forward of its own
    for i in range(2):
        xs = [x.detach().requires_grad_() for x in inputs]
        model(*xs)[:, idx].sum().backward()
        same = torch.allclose(torch.from_numpy(grads[i]), xs[i].grad)
        print(
            f"output {idx}, input {i}: grad L1 norm "
            f"{abs(grads[i]).sum():.4f}, same as alone: {same}"
        )
