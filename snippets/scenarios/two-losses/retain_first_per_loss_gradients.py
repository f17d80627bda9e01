import torch
from torch import nn
from torch.nn import functional as F


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(4, 16), nn.ReLU())
        self.value = nn.Linear(16, 1)
        self.label = nn.Linear(16, 3)

    def forward(self, x):
        h = self.trunk(x)
        return self.value(h), self.label(h)


torch.manual_seed(0)
model = TwoHeads()
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 4)
value_target, label_target = torch.randn(8, 1), torch.randint(3, (8,))
w = model.trunk[0].weight
passes = []
w.register_hook(lambda grad: passes.append(1))  # one per trunk pass

for step in range(2):
    opt.zero_grad()
    passes.clear()
    value, logits = model(x)
    loss_value = F.mse_loss(value, value_target)
    loss_label = F.cross_entropy(logits, label_target)

    loss_value.backward(retain_graph=True)  # keep the trunk's tensors
    grad_value = w.grad.clone()  # the value loss's share alone
    loss_label.backward()  # the last pass may free the graph
    grad_label = w.grad - grad_value

    cos = F.cosine_similarity(
        grad_value.flatten(), grad_label.flatten(), dim=0
    )
    opt.step()
    print(
        f"step {step}: trunk passes {len(passes)}, "
        f"cosine(value, label) {cos.item():.4f}"
    )
