# Consistency Trajectory Model distillation of a diffusion policy, after
# Aaditya-Prasad/consistency-policy (consistency_policy/student/
# ctm_policy.py): the student jumps from time t to s; a frozen teacher
# solves the ODE from t to u, the EMA student jumps from u to s, and
# the EMA student takes both back to time 0 before they are compared.
# A DSM term trains the student to denoise in one jump. Reduced:
# vectors for action trajectories, one Euler step for the teacher.
import copy

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
N, OBS, ACT, COND = 32, 6, 4, 8
T_MIN, T_MAX = 0.02, 2.0


class Jump(nn.Module):
    # G(x, t, s) = s/t x + (1 - s/t) g(x, t, s, cond)
    def __init__(self):
        super().__init__()
        self.g = nn.Sequential(
            nn.Linear(ACT + 2 + COND, 64), nn.SiLU(), nn.Linear(64, ACT)
        )

    def forward(self, x, t, s, cond):
        r = (s / t)[:, None]
        h = torch.cat([x, t[:, None], s[:, None], cond], 1)
        return r * x + (1 - r) * self.g(h)


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(ACT + 1 + COND, 64), nn.SiLU(), nn.Linear(64, ACT)
        )

    def forward(self, x, t, cond):
        return self.net(torch.cat([x, t[:, None], cond], 1))


obs_encoder = nn.Linear(OBS, COND)
model = Jump()
model_ema = copy.deepcopy(model)
teacher = Denoiser().requires_grad_(False)
optimizer = torch.optim.AdamW(
    [*model.parameters(), *obs_encoder.parameters()], lr=1e-3
)
ema_decay = 0.95
all_obs = torch.randn(5, N, OBS)
all_traj = torch.tanh(all_obs[..., :ACT] + 0.5 * all_obs[..., ACT:].sum(-1, keepdim=True))


def reaches(losses, params):
    # do these losses' graphs lead to any of params? (walks grad_fn)
    ids, seen, todo = {id(p) for p in params}, set(), [lo.grad_fn for lo in losses]
    while todo:
        fn = todo.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if id(getattr(fn, "variable", None)) in ids:
            return True
        todo.extend(f for f, _ in fn.next_functions)
    return False


for step in range(5):
    obs, trajectory = all_obs[step], all_traj[step]
    global_cond = obs_encoder(obs)
    start = torch.full((N,), T_MIN)

    # ctm: t -> s by the student, t -> u by the teacher, u -> s by EMA
    t = T_MIN + (T_MAX - T_MIN) * torch.rand(N)
    u = t - (t - T_MIN) * 0.3 * torch.rand(N)
    s = T_MIN + (u - T_MIN) * torch.rand(N)
    noise_traj = trajectory + t[:, None] * torch.randn(N, ACT)
    with torch.no_grad():
        x0 = teacher(noise_traj, t, global_cond)
        u_noise_traj = noise_traj + ((u - t) / t)[:, None] * (noise_traj - x0)
    pred = model(noise_traj, t, s, global_cond)
    with torch.no_grad():
        target = model_ema(u_noise_traj, u, s, global_cond)
    # now both back to 0: the student's jump through the EMA student,
    # whose parameters get gradients that no optimizer uses
    pred = model_ema(pred, s, start, global_cond)
    with torch.no_grad():
        target = model_ema(target, s, start, global_cond)
    loss_ctm = F.huber_loss(pred, target)

    # dsm: one jump from a noisy trajectory to time 0
    t2 = T_MIN + (T_MAX - T_MIN) * torch.rand(N)
    noisy_trajectory = trajectory + t2[:, None] * torch.randn(N, ACT)
    pred_d = model(noisy_trajectory, t2, start, global_cond)
    loss_dsm = F.huber_loss(pred_d, trajectory)

    reach = reaches([loss_ctm], model.parameters())
    ema_before = [None if p.grad is None else p.grad.clone()
                  for p in model_ema.parameters()]
    optimizer.zero_grad()
    loss = loss_ctm + loss_dsm
    loss.backward()
    optimizer.step()
    written = all(b is None or not torch.equal(b, p.grad)
                  for b, p in zip(ema_before, model_ema.parameters()))

    # ema_update
    with torch.no_grad():
        param = [p.data for p in model.parameters()]
        param_ema = [p.data for p in model_ema.parameters()]
        torch._foreach_mul_(param_ema, ema_decay)
        torch._foreach_add_(param_ema, param, alpha=1 - ema_decay)
    print(f"step {step}: loss_ctm reaches the student: {reach}; "
          f"the step wrote grads into model_ema: {written}")
held = {id(p) for g in optimizer.param_groups for p in g["params"]}
print("the optimizer holds model_ema's parameters:",
      any(id(p) in held for p in model_ema.parameters()))
