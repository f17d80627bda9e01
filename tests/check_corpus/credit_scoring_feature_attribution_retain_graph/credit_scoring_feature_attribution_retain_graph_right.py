import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

FEATURES = ["income", "debt_ratio", "age", "num_loans", "late_payments", "utilization"]


def make_applicants(n):
    x = torch.randn(n, len(FEATURES))
    logit = 1.5 * x[:, 4] + 1.0 * x[:, 1] - 0.8 * x[:, 0] + 0.3 * x[:, 5]
    y = (logit + 0.3 * torch.randn(n) > 0).float()
    return x, y


class CreditNet(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(d, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, 1))

    def forward(self, x):
        return self.net(x).squeeze(-1)


def feature_attribution(x):
    return x.grad.abs().mean(0)


x_all, y_all = make_applicants(512)
model = CreditNet(len(FEATURES))
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

importance_log = []
for epoch in range(3):
    for i in range(0, len(x_all), 64):
        xb = x_all[i:i + 64].clone().requires_grad_(True)
        yb = y_all[i:i + 64]
        optimizer.zero_grad()
        logits = model(xb)
        loss = F.binary_cross_entropy_with_logits(logits, yb)
        loss.backward()
        importance_log.append(feature_attribution(xb))
        optimizer.step()
    imp = torch.stack(importance_log).mean(0)
    print(epoch, round(loss.item(), 4), {f: round(v, 5) for f, v in zip(FEATURES, imp.tolist())})
