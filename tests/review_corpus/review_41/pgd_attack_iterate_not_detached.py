# written
# PGD adversarial training (Madry et al.): K signed-gradient ascent steps on the input inside an
# L-inf ball, then a training step on the adversarial batch. Each attack step needs d loss / d x_adv
# at the current iterate only; the iterate is a constant for the model update.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(20, 64), torch.nn.ReLU(), torch.nn.Linear(64, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
X, Y = torch.rand(256, 20), torch.randint(0, 3, (256,))
eps, alpha, K = 0.1, 0.025, 5

for step in range(3):
    idx = torch.randint(0, 256, (32,))
    x, y = X[idx], Y[idx]
    x_adv = (x + torch.empty_like(x).uniform_(-eps, eps)).clamp(0, 1).requires_grad_()
    for k in range(K):
        loss_adv = F.cross_entropy(model(x_adv), y)
        loss_adv.backward()
        x_adv = x_adv + alpha * x_adv.grad.sign()
        x_adv = torch.min(torch.max(x_adv, x - eps), x + eps).clamp(0, 1)
        x_adv.retain_grad()
    opt.zero_grad()
    loss = F.cross_entropy(model(x_adv), y)
    loss.backward()
    opt.step()
    print(step, loss.item())
