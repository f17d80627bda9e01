# GradNorm (Chen et al. 2018): two regression tasks on a shared trunk;
# the task weights are trained so that the weighted tasks' gradient
# norms at the trunk's last layer follow their relative progress.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 32))
heads = nn.ModuleList([nn.Linear(32, 1), nn.Linear(32, 1)])
shared = trunk[2].weight
w = nn.Parameter(torch.ones(2))
model_opt = torch.optim.SGD(
    [*trunk.parameters(), *heads.parameters()], lr=0.01
)
w_opt = torch.optim.Adam([w], lr=0.025)
a = 1.5
x = torch.randn(6, 64, 8)
ys = [x.sum(-1, keepdim=True), 10 * x[..., :1].sin()]


def task_losses(step):
    z = trunk(x[step])
    return torch.stack(
        [F.mse_loss(h(z), y[step]) for h, y in zip(heads, ys)]
    )


def gradnorm_w_grad(step, L0):
    # the paper's L_grad differentiated in w, from a fresh forward
    losses = task_losses(step)
    G = torch.stack(
        [
            torch.autograd.grad(
                w[i] * losses[i], shared, create_graph=True
            )[0].norm()
            for i in range(2)
        ]
    )
    r = losses.detach() / L0
    target = (G.mean() * (r / r.mean()) ** a).detach()
    return torch.autograd.grad((G - target).abs().sum(), w)[0]


for step in range(6):
    losses = task_losses(step)
    if step == 0:
        L0 = losses.detach()
    want = gradnorm_w_grad(step, L0)
    total = (w * losses).sum()
    G = torch.stack(
        [
            torch.autograd.grad(
                w[i] * losses[i], shared, retain_graph=True
            )[0].norm()
            for i in range(2)
        ]
    )
    r = losses.detach() / L0
    target = (G.mean() * (r / r.mean()) ** a).detach()
    L_grad = (G - target).abs().sum()
    model_opt.zero_grad()
    w_opt.zero_grad()
    # one backward for both: L_grad.backward() alone said it does not
    # require grad, and a 2nd backward had found the graph freed
    (total + L_grad).backward()
    from_l_grad = w.grad - losses.detach()
    print(
        f"step {step}: L_grad {L_grad.item():.3f}; w grad from "
        f"L_grad {from_l_grad.tolist()}, GradNorm's "
        f"{[round(v, 4) for v in want.tolist()]}"
    )
    model_opt.step()
    w_opt.step()
    with torch.no_grad():
        w.mul_(2 / w.sum())
print(f"task weights {[round(v, 4) for v in w.tolist()]}")
