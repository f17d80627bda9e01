# written
# Ordinary training loop with a small logging helper that reports the gradient norm of each step.
# The helper computes the norm with torch.autograd.grad on the loss; the loop then calls backward.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 64), torch.nn.Tanh(), torch.nn.Linear(64, 1))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
X = torch.randn(512, 8)
Y = (X[:, :1] * X[:, 1:2]).sin()
history = []


def log_grad_norm(loss, model):
    grads = torch.autograd.grad(loss, [p for p in model.parameters() if p.requires_grad])
    norm = torch.sqrt(sum((g**2).sum() for g in grads)).item()
    history.append(norm)
    return norm


for step in range(5):
    idx = torch.randint(0, 512, (64,))
    loss = F.mse_loss(model(X[idx]), Y[idx])
    gn = log_grad_norm(loss, model)
    opt.zero_grad()
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    print(f"step {step} loss {loss.item():.4f} grad-norm {gn:.4f}")
