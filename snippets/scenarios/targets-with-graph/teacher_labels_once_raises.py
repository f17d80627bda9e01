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
opt = torch.optim.SGD(model.student.parameters(), lr=0.1)

unlabelled = torch.randn(32, 4)
# Pseudo-labels for the epoch, made once by the teacher.
soft_labels = model.teacher(unlabelled).softmax(dim=1)

for step, x in enumerate(unlabelled.split(8)):
    target = soft_labels[8 * step : 8 * step + 8]
    loss = nn.functional.cross_entropy(model.student(x), target)
    opt.zero_grad()
    loss.backward()
    opt.step()
    model.teacher.update_parameters(model.student)
    print(f"step {step}: distillation loss {loss.item():.4f}")
