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
        # the initial losses stay fixed on purpose: r measures each
        # task's progress since the start
        L0 = losses.detach()
    want = gradnorm_w_grad(step, L0)
    total = (w * losses).sum()
    model_opt.zero_grad()
    w_opt.zero_grad()
    # the graph is kept for this step's gradient norms below
    total.backward(retain_graph=True)
    # ||grad(w_i L_i)|| = w_i ||grad L_i||: L_grad needs the norms as
    # constants only, w stays a factor, so no create_graph
    norms = []
    for i in range(2):
        g = torch.autograd.grad(losses[i], shared, retain_graph=i == 0)
        norms.append(g[0].norm())
    G = w * torch.stack(norms)
    r = losses.detach() / L0
    target = (G.mean() * (r / r.mean()) ** a).detach()
    L_grad = (G - target).abs().sum()
    # GradNorm trains w by L_grad only, not by the weighted total
    w.grad = torch.autograd.grad(L_grad, w)[0]
    print(
        f"step {step}: L_grad {L_grad.item():.3f}; w grad "
        f"{[round(v, 4) for v in w.grad.tolist()]}, GradNorm's "
        f"{[round(v, 4) for v in want.tolist()]}"
    )
    model_opt.step()
    w_opt.step()
    with torch.no_grad():
        w.mul_(2 / w.sum())
print(f"task weights {[round(v, 4) for v in w.tolist()]}")
