# source: https://github.com/kozistr/pytorch_optimizer/issues/66
# SAM (first_step/second_step, written out in plain torch) on a backbone trained together with a
# loss-prediction module (learning-loss active learning). The second pass must be a full forward
# at the perturbed weights w+e; here it recomputes the scores but reuses the first pass's features.
import torch
import torch.nn.functional as F

torch.manual_seed(0)


class Backbone(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.body, self.head = torch.nn.Linear(10, 32), torch.nn.Linear(32, 4)

    def forward(self, x):
        f = torch.relu(self.body(x))
        return self.head(f), f


backbone, lossnet = Backbone(), torch.nn.Linear(32, 1)
params = list(backbone.parameters()) + list(lossnet.parameters())
base_opt = torch.optim.SGD(params, lr=0.05, momentum=0.9)
rho = 0.05


def total_loss(scores, features, y):
    target = F.cross_entropy(scores, y, reduction="none")
    pred = lossnet(features).squeeze(1)
    return target.mean() + 0.1 * F.mse_loss(pred, target.detach())


for it in range(3):
    x, y = torch.randn(16, 10), torch.randint(0, 4, (16,))
    scores, features = backbone(x)
    loss = total_loss(scores, features, y)
    loss.backward()
    with torch.no_grad():  # first_step: climb to w + e
        norm = torch.norm(torch.stack([p.grad.norm() for p in params]))
        eps = [rho * p.grad / (norm + 1e-12) for p in params]
        for p, e in zip(params, eps):
            p.add_(e)
    base_opt.zero_grad()
    scores, _ = backbone(x)  # second forward-backward pass
    total_loss(scores, features, y).backward()
    with torch.no_grad():  # second_step: back to w, SAM update
        for p, e in zip(params, eps):
            p.sub_(e)
    base_opt.step()
    base_opt.zero_grad()
    print(it, loss.item())
