"""shap's DeepExplainer on a model with two inputs: one grad() call per
input over the same outputs.

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
    """DeepExplainer's PyTorch gradient(), before the pull request."""

    def __init__(self, model):
        self.model = model

    def gradient(self, idx, inputs):
        self.model.zero_grad()
        X = [x.requires_grad_() for x in inputs]
        outputs = self.model(*X)
        selected = [val for val in outputs[:, idx]]
        grads = []
        for x in X:
            grad = torch.autograd.grad(selected, x)[0]
            grads.append(grad.cpu().numpy())
        return grads


explainer = PyTorchDeep(TwoInputModel())
inputs = [torch.randn(6, 5), torch.randn(6, 3)]
for idx in range(2):
    grads = explainer.gradient(idx, inputs)
    print(f"output {idx}: gradient shapes {[g.shape for g in grads]}")
