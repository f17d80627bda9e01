# source: https://github.com/facebookresearch/higher/issues/32
# Trainable optimizer (learned step size) reduced to plain torch: the model weights take a
# differentiable SGD step with a learned lr `eta`, the validation loss after that step trains
# `eta` (one-step hypergradient), and the stepped weights are kept for the next outer step.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
X, Y = torch.randn(256, 8), None
w_true = torch.randn(8, 1)
Y = X @ w_true + 0.1 * torch.randn(256, 1)
Xtr, Ytr, Xva, Yva = X[:192], Y[:192], X[192:], Y[192:]

w = torch.zeros(8, 1, requires_grad=True)  # model weights (trained by the learned rule)
log_eta = torch.tensor(
    -3.0, requires_grad=True
)  # learned step size (what the meta-optimizer trains)
meta_opt = torch.optim.Adam([log_eta], lr=0.05)

for outer_i in range(5):
    idx = torch.randint(0, 192, (32,))
    train_loss = F.mse_loss(Xtr[idx] @ w, Ytr[idx])
    (g,) = torch.autograd.grad(train_loss, w)  # gradient is a constant (first order in w)
    w = w - log_eta.exp() * g  # differentiable in eta
    val_loss = F.mse_loss(Xva @ w, Yva)
    meta_opt.zero_grad()
    val_loss.backward()
    meta_opt.step()
    print(outer_i, "val", val_loss.item(), "eta", log_eta.exp().item())
