import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
scaler = torch.amp.GradScaler("cpu")
x, y = torch.randn(16, 4), torch.randn(16, 1)
params = list(model.parameters())


def forward():
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return nn.functional.mse_loss(model(x), y)


def penalty_of(grads):
    # Part of the forward pass, so under autocast too.
    with torch.autocast("cpu", dtype=torch.bfloat16):
        return sum(g.pow(2).sum() for g in grads).sqrt()


opt.zero_grad()
loss = forward()
# Scaled outputs in, scaled gradients out. create_graph=True keeps
# them differentiable, so the penalty can be backpropagated.
scaled_grads = torch.autograd.grad(
    scaler.scale(loss), params, create_graph=True
)
# No optimizer owns these: unscale by plain (differentiable) division.
inv_scale = 1.0 / scaler.get_scale()
penalty = penalty_of([g * inv_scale for g in scaled_grads])
scaler.scale(loss + penalty).backward()
scaler.unscale_(opt)
amp_grads = [p.grad.clone() for p in params]
scaler.step(opt)
scaler.update()

# The same first step without loss scaling, for comparison.
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
params = list(model.parameters())
loss = forward()
grads = torch.autograd.grad(loss, params, create_graph=True)
plain_penalty = penalty_of(grads)
(loss + plain_penalty).backward()
same = all(map(torch.equal, amp_grads, (p.grad for p in params)))
print(f"penalty = {penalty:.4f}, without scaling = {plain_penalty:.4f}")
print(f"same parameter gradients as without scaling: {same}")
