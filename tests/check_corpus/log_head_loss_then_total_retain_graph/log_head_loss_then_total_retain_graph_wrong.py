# Multi-task training; the age head's gradient norm is logged before
# the joint update.
import torch
from torch import nn

torch.manual_seed(0)

trunk = nn.Sequential(nn.Linear(16, 32), nn.ReLU())
age_head, gender_head = nn.Linear(32, 1), nn.Linear(32, 2)
model = nn.ModuleList([trunk, age_head, gender_head])
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(64, 16)
age, gender = torch.randn(64, 1), torch.randint(0, 2, (64,))

for step in range(4):
    h = trunk(x)
    age_loss = nn.functional.mse_loss(age_head(h), age)
    gender_loss = nn.functional.cross_entropy(gender_head(h), gender)
    opt.zero_grad()
    age_loss.backward(retain_graph=True)
    age_grad = age_head.weight.grad.norm().item()
    loss = age_loss + gender_loss
    loss.backward()
    opt.step()
    print(
        f"step {step}: loss {loss.item():.3f}, "
        f"age grad {age_grad:.3f}"
    )
