import torch
from torch import nn
from torch.optim.swa_utils import AveragedModel, get_ema_multi_avg_fn


class MeanTeacher(nn.Module):
    def __init__(self):
        super().__init__()
        self.student = nn.Sequential(
            nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3)
        )
        # PyTorch's EMA helper deep-copies the student: the copy's
        # parameters require grad, so teacher(x) records a graph.
        ema = get_ema_multi_avg_fn(0.99)
        self.teacher = AveragedModel(self.student, multi_avg_fn=ema)


torch.manual_seed(0)
model = MeanTeacher()
# Even with the teacher's parameters in the optimizer, as here:
opt = torch.optim.SGD(model.parameters(), lr=0.1)
ema_only = AveragedModel(
    model.student, multi_avg_fn=get_ema_multi_avg_fn(0.99)
)

unlabelled = torch.randn(32, 4)
with torch.no_grad():  # for comparison only: labels made once
    epoch_labels = model.teacher(unlabelled).softmax(dim=1)

for step, x in enumerate(unlabelled.split(8)):
    # The teacher's output in each step, without a graph
    with torch.no_grad():
        target = model.teacher(x).softmax(dim=1)
    view = x + 0.5 * torch.randn_like(x)  # the student's noisy view
    loss = nn.functional.cross_entropy(model.student(view), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    model.teacher.update_parameters(model.student)
    ema_only.update_parameters(model.student)
    stale = epoch_labels[8 * step : 8 * step + 8]
    print(
        f"step {step}: distillation loss {loss.item():.3f}, "
        f"off the epoch's labels by {(target - stale).abs().max():.3f}"
    )

teacher_w = model.teacher.module[0].weight
print(f"teacher .grad is None: {teacher_w.grad is None}")
same = all(
    torch.equal(p, q)
    for p, q in zip(model.teacher.parameters(), ema_only.parameters())
)
print(f"teacher equals the plain EMA: {same}")
