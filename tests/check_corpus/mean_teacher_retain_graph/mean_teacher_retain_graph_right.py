import copy

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def make_net():
    return nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 5))


student = make_net()
teacher = copy.deepcopy(student)
for p in teacher.parameters():
    p.requires_grad_(False)

optimizer = torch.optim.SGD(student.parameters(), lr=0.05, momentum=0.9)
ema_decay = 0.99
consistency_weight = 1.0

x_lab = torch.randn(64, 20)
y_lab = (x_lab[:, :5]).argmax(1)
x_unlab = torch.randn(512, 20)


def update_teacher(student, teacher, decay):
    with torch.no_grad():
        for t_param, s_param in zip(teacher.parameters(), student.parameters()):
            t_param.copy_(decay * t_param + (1 - decay) * s_param)


for step in range(5):
    idx = torch.randint(0, 64, (16,))
    u = x_unlab[torch.randint(0, 512, (32,))]
    noise = 0.1 * torch.randn_like(u)
    sup = F.cross_entropy(student(x_lab[idx]), y_lab[idx])
    cons = F.mse_loss(student(u + noise).softmax(-1), teacher(u - noise).softmax(-1))
    loss = sup + consistency_weight * cons
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    update_teacher(student, teacher, ema_decay)
    print(f"step {step} sup {sup.item():.4f} cons {cons.item():.5f}")
