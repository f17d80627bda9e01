import torch
from torch import nn
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn


class MeanTeacher(nn.Module):
    def __init__(self):
        super().__init__()
        self.student = nn.Sequential(
            nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3)
        )
        ema = get_ema_multi_avg_fn(0.99)
        self.teacher = AveragedModel(self.student, multi_avg_fn=ema)


torch.manual_seed(0)
model = MeanTeacher()
# model.parameters() includes the teacher's.
opt = torch.optim.SGD(model.parameters(), lr=0.1)
# What the teacher should be: the EMA of the student, nothing else.
ema_only = AveragedModel(
    model.student, multi_avg_fn=get_ema_multi_avg_fn(0.99)
)
start = [p.detach().clone() for p in ema_only.parameters()]


def max_diff(a, b):
    return max((p - q).abs().max().item() for p, q in zip(a, b))


for step in range(3):
    x = torch.randn(8, 4)
    noisy = x + 0.1 * torch.randn_like(x)
    target = model.teacher(noisy).softmax(dim=1)  # a fresh graph
    loss = nn.functional.cross_entropy(model.student(x), target)
    opt.zero_grad()
    loss.backward()  # no error: each graph is used once
    opt.step()
    model.teacher.update_parameters(model.student)
    ema_only.update_parameters(model.student)
    got_grad = model.teacher.module[0].weight.grad is not None
    drift = max_diff(model.teacher.parameters(), ema_only.parameters())
    print(
        f"step {step}: teacher got a gradient: {got_grad}, "
        f"off its EMA by {drift:.4f}"
    )

moved = max_diff(ema_only.parameters(), start)
print(f"the EMA itself moved {moved:.4f} in these 3 steps")
