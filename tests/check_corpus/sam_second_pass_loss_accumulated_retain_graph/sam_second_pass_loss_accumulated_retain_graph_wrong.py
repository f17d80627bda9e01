# https://github.com/davda54/sam/issues/10
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SAM(torch.optim.Optimizer):
    def __init__(self, params, base_optimizer, rho=0.05, **kwargs):
        super().__init__(params, dict(rho=rho, **kwargs))
        self.base_optimizer = base_optimizer(self.param_groups, **kwargs)

    @torch.no_grad()
    def first_step(self, zero_grad=False):
        grad_norm = torch.norm(torch.stack([p.grad.norm(2) for g in self.param_groups for p in g["params"]]), 2)
        for group in self.param_groups:
            scale = group["rho"] / (grad_norm + 1e-12)
            for p in group["params"]:
                self.state[p]["old_p"] = p.data.clone()
                p.add_(p.grad * scale)
        if zero_grad:
            self.zero_grad()

    @torch.no_grad()
    def second_step(self, zero_grad=False):
        for group in self.param_groups:
            for p in group["params"]:
                p.data = self.state[p]["old_p"]
        self.base_optimizer.step()
        if zero_grad:
            self.zero_grad()


def get_loss(output, target, t):
    loss_t = F.binary_cross_entropy_with_logits(output[:, t], target[:, t])
    acc_t = ((output[:, t] > 0).float() == target[:, t]).float().mean()
    return loss_t, acc_t


num_tasks = 5
model = nn.Linear(32, num_tasks)
optimizer = SAM(model.parameters(), torch.optim.SGD, rho=0.5, lr=0.5, momentum=0.9)
image = torch.randn(64, 32)
target = (image[:, :num_tasks] + 0.5 * torch.randn(64, num_tasks) > 0).float()

for step in range(10):
    output = model(image)
    loss = 0
    for t in range(num_tasks):
        loss_t, acc_t = get_loss(output, target, t)
        loss += loss_t
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.first_step(zero_grad=True)
    output = model(image)
    for t in range(num_tasks):
        loss_t, acc_t = get_loss(output, target, t)
        loss += loss_t
    loss.backward()
    fresh_loss = sum(get_loss(model(image), target, t)[0] for t in range(num_tasks))
    fresh = torch.autograd.grad(fresh_loss, list(model.parameters()))
    used = torch.cat([p.grad.flatten() for p in model.parameters()])
    fresh = torch.cat([g.flatten() for g in fresh])
    print(f"step {step}: loss backpropagated in 2nd pass {loss.item():.4f} vs 2nd-pass loss {fresh_loss.item():.4f}, "
          f"rel diff |grad used - SAM grad at w+e| {((used - fresh).norm() / fresh.norm()).item():.3f}")
    optimizer.second_step(zero_grad=True)
