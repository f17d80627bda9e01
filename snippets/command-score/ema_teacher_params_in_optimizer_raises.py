import copy

import torch
from torch import nn

torch.manual_seed(0)

student = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 4))
# mean teacher: an exponential moving average of the student
teacher = copy.deepcopy(student)
optimizer = torch.optim.Adam(
    list(student.parameters()) + list(teacher.parameters()), lr=1e-3
)
ema_decay = 0.99
x_labeled, y_labeled = torch.randn(16, 8), torch.randint(0, 4, (16,))
x_unlabeled = torch.randn(64, 8)

for epoch in range(2):
    # soft targets for the unlabeled data, once per epoch
    teacher_probs = teacher(x_unlabeled).softmax(-1)
    for step in range(3):
        optimizer.zero_grad()
        supervised = nn.functional.cross_entropy(
            student(x_labeled), y_labeled
        )
        consistency = nn.functional.mse_loss(
            student(x_unlabeled).softmax(-1), teacher_probs
        )
        loss = supervised + 10 * consistency
        loss.backward()
        optimizer.step()
        with torch.no_grad():
            for t, s in zip(teacher.parameters(), student.parameters()):
                t.mul_(ema_decay).add_(s, alpha=1 - ema_decay)
        print(
            f"epoch {epoch} step {step}: "
            f"supervised {supervised.item():.3f}, "
            f"consistency {consistency.item():.4f}"
        )
