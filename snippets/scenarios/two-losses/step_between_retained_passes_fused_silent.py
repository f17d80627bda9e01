import torch
from torch import nn
from torch.nn import functional as F


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        # Two layers: the second one's input requires grad, so its
        # backward needs, and the graph saves, its weight.
        self.trunk = nn.Sequential(
            nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU()
        )
        self.value = nn.Linear(16, 1)
        self.label = nn.Linear(16, 3)

    def forward(self, x):
        h = self.trunk(x)
        return self.value(h), self.label(h)


def label_grad_now(model):
    # A fresh forward: the label loss's trunk gradient at these weights
    loss = F.cross_entropy(model(x)[1], label_target)
    return torch.autograd.grad(loss, model.trunk[0].weight)[0]


torch.manual_seed(0)
x = torch.randn(8, 4)
value_target, label_target = torch.randn(8, 1), torch.randint(3, (8,))
model = TwoHeads()
opt = torch.optim.SGD(model.parameters(), lr=0.1, fused=True)

w = model.trunk[2].weight
value, logits = model(x)
saved_at = w._version  # the version the graph saved
at_forward = label_grad_now(model)
loss_value = F.mse_loss(value, value_target)
loss_label = F.cross_entropy(logits, label_target)
opt.zero_grad()
loss_value.backward(retain_graph=True)
opt.step()  # updates the shared trunk's weights, version unchanged
opt.zero_grad()
print(
    f"trunk[2].weight: version {saved_at} in the graph, "
    f"{w._version} after step()"
)
loss_label.backward()  # no error
got = model.trunk[0].weight.grad
print(
    "label gradient = at the forward's weights: "
    f"{torch.allclose(got, at_forward)}, at the updated weights: "
    f"{torch.allclose(got, label_grad_now(model))}"
)
