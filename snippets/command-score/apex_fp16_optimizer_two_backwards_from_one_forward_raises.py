"""Two losses from one forward, each passed to apex's
FP16_Optimizer.backward() before update_master_grads() and step()
(apex in November 2018, before backward() took retain_graph).

Source: https://github.com/NVIDIA/apex/issues/85
The user wanted to call optimizer.backward() once per loss, with
update_master_grads=False, then update the master gradients and
step once.
Kept: FP16_Optimizer's backward (the loss made fp32 and multiplied by
the loss scale, then backward), update_master_grads (model grads
copied to the fp32 master params and divided by the scale) and step
(the wrapped optimizer steps the master params, copied back to the
model); changed: a static loss scale, the model kept in fp32 on the
CPU, a two-headed MLP on random data.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class FP16_Optimizer:
    def __init__(self, params, lr, loss_scale=128.0):
        self.model_params = list(params)
        self.master_params = [
            p.detach().clone().float().requires_grad_()
            for p in self.model_params
        ]
        self.optimizer = torch.optim.SGD(self.master_params, lr=lr)
        self.loss_scale = loss_scale

    def zero_grad(self):
        for p in self.model_params + self.master_params:
            p.grad = None

    def backward(self, loss, update_master_grads=True):
        scaled_loss = loss.float() * self.loss_scale
        scaled_loss.backward()
        if update_master_grads:
            self.update_master_grads()

    def update_master_grads(self):
        for model_p, master_p in zip(
            self.model_params, self.master_params
        ):
            master_p.grad = model_p.grad.float() / self.loss_scale

    def step(self):
        self.optimizer.step()
        with torch.no_grad():
            for model_p, master_p in zip(
                self.model_params, self.master_params
            ):
                model_p.copy_(master_p)


trunk = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
head1, head2 = nn.Linear(16, 3), nn.Linear(16, 1)
model = nn.ModuleList([trunk, head1, head2])
optimizer = FP16_Optimizer(model.parameters(), lr=0.1)
x, y1, y2 = torch.randn(8, 6), torch.randint(0, 3, (8,)), torch.randn(8)

for step in range(2):
    optimizer.zero_grad()
    h = trunk(x)
    loss1 = F.cross_entropy(head1(h), y1)
    loss2 = F.mse_loss(head2(h).squeeze(1), y2)
    optimizer.backward(loss1, update_master_grads=False)
    optimizer.backward(loss2, update_master_grads=False)
    optimizer.update_master_grads()
    optimizer.step()
    print(
        f"step {step}: loss1 {loss1.item():.4f}, "
        f"loss2 {loss2.item():.4f}"
    )
