# Multi-task training with the SAM optimizer (davda54/sam's two-step
# first_step/second_step API, re-implemented here in a few lines).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SAM(torch.optim.Optimizer):
    """Minimal copy of davda54/sam: first_step climbs to w + e(w),
    second_step returns and steps."""

    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        defaults = dict(rho=rho, **kwargs)
        super().__init__(params, defaults)
        self.base_optimizer = base_optimizer(
            self.param_groups, **kwargs
        )

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        grad_norm = torch.norm(
            torch.stack(
                [
                    p.grad.norm(p=2)
                    for g in self.param_groups
                    for p in g["params"]
                    if p.grad is not None
                ]
            ),
            p=2,
        )
        for group in self.param_groups:
            scale = group["rho"] / (grad_norm + 1e-12)
            for p in group["params"]:
                if p.grad is None:
                    continue
                e_w = p.grad * scale
                p.add_(e_w)  # climb to the local maximum "w + e(w)"
                self.state[p]["e_w"] = e_w
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                p.sub_(
                    self.state[p]["e_w"]
                )  # get back to "w" from "w + e(w)"
        # do the actual "sharpness-aware" update
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()


class Model(nn.Module):
    """Shared trunk with one logit per task (stands in for the user's
    classifier returning (output, logit_map))."""

    def __init__(self, num_tasks):
        super().__init__()
        self.trunk = nn.Sequential(nn.Linear(8, 16), nn.ReLU())
        self.heads = nn.Linear(16, num_tasks)

    def forward(self, image):
        feat = self.trunk(image)
        return self.heads(feat), feat


def get_loss(output, target, t, device, cfg):
    loss_t = F.binary_cross_entropy_with_logits(
        output[:, t], target[:, t]
    )
    acc_t = ((output[:, t] > 0).float() == target[:, t]).float().mean()
    return loss_t, acc_t


num_tasks, device, cfg = 3, "cpu", None
model = Model(num_tasks)
optimizer = SAM(
    model.parameters(), torch.optim.SGD, rho=0.05, lr=0.1, momentum=0.9
)
image = torch.randn(16, 8)
target = (torch.randn(16, num_tasks) > 0).float()

for step in range(5):
    loss_sum = [0.0] * num_tasks
    acc_sum = [0.0] * num_tasks
    output, logit_map = model(image)

    loss = 0
    for t in range(num_tasks):
        loss_t, acc_t = get_loss(output, target, t, device, cfg)
        loss += loss_t
        loss_sum[t] += loss_t.item()
        acc_sum[t] += acc_t.item()

    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.first_step(zero_grad=True)
    print(f"step {step}: first-pass loss {loss.item():.3f}")
    output, logit_map = model(image)

    for t in range(num_tasks):
        loss_t, acc_t = get_loss(output, target, t, device, cfg)
        loss += loss_t
        loss_sum[t] += loss_t.item()
        acc_sum[t] += acc_t.item()
    loss.backward()
    optimizer.second_step(zero_grad=True)
