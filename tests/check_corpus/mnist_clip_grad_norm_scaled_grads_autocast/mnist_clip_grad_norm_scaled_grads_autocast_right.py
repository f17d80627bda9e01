# The PyTorch MNIST example moved to mixed precision (GradScaler and
# bf16 autocast, here on CPU) with its clip_grad_norm_(..., 12), and
# scaler.unscale_(optimizer) before the clip, as the AMP examples
# page says, so the clip sees the gradients' true norm.
# https://github.com/pytorch/pytorch/issues/40907
import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import clip_grad_norm_

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, 1)
        self.conv2 = nn.Conv2d(8, 16, 3, 1)
        self.fc1 = nn.Linear(16 * 2 * 2, 32)
        self.fc2 = nn.Linear(32, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(torch.flatten(x, 1)))
        return F.log_softmax(self.fc2(x).float(), dim=1)


model = Net()
optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
scaler = torch.amp.GradScaler("cpu")
print(f"scaler enabled {scaler.is_enabled()}, "
      f"scale {scaler.get_scale():.0f}")
digits = torch.randn(10, 1, 8, 8)
target = torch.randint(10, (8, 64))
data = digits[target] + 0.8 * torch.randn(8, 64, 1, 8, 8)
for step in range(8):
    optimizer.zero_grad()
    with torch.autocast("cpu", dtype=torch.bfloat16):
        output = model(data[step])
        loss = F.nll_loss(output, target[step])
    scaler.scale(loss).backward()
    scaler.unscale_(optimizer)
    clip_grad_norm_(model.parameters(), 12)
    scaler.step(optimizer)
    scaler.update()
    used = torch.cat([p.grad.flatten() for p in model.parameters()])
    print(f"step {step}: loss {loss.item():.4f}, gradient norm the "
          f"step used {used.norm().item():.3g}")
