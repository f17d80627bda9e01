# https://github.com/fangwei123456/Spike-Element-Wise-ResNet/issues/19
# A SEW-ResNet-style spiking net with spikingjelly's LIF neurons and
# its fit_one_epoch loop, reduced to plain torch (the surrogate spike
# is a straight-through sigmoid instead of spikingjelly's kernel).
import torch
from torch import nn


class LIFNode(nn.Module):
    def __init__(self, tau=2.0, v_threshold=1.0, v_reset=0.0):
        super().__init__()
        self.tau, self.v_threshold = tau, v_threshold
        self.v_reset = v_reset
        self.v = v_reset  # membrane potential

    def reset(self):
        self.v = self.v_reset

    def forward(self, x):
        self.v = self.v + (x - (self.v - self.v_reset)) / self.tau
        surrogate = torch.sigmoid(4.0 * (self.v - self.v_threshold))
        fired = (self.v >= self.v_threshold).float()
        spike = surrogate + (fired - surrogate).detach()
        self.v = self.v * (1 - spike) + self.v_reset * spike
        return spike


def reset_net(net):  # spikingjelly.clock_driven.functional.reset_net
    for m in net.modules():
        if hasattr(m, "reset"):
            m.reset()


class SpikingNet(nn.Module):
    def __init__(self, T=4):
        super().__init__()
        self.T = T
        self.layer1 = nn.Sequential(nn.Linear(6, 16), LIFNode())
        self.fc = nn.Linear(16, 3)

    def forward(self, x):
        out = 0
        for _ in range(self.T):
            out = out + self.fc(self.layer1(x))
        return out / self.T


torch.manual_seed(0)
model = SpikingNet()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
batches = [
    (4 * torch.randn(8, 6), torch.randint(3, (8,))) for _ in range(3)
]

neurons = [m for m in model.modules() if isinstance(m, LIFNode)]
for iteration, (images, targets) in enumerate(batches):
    fresh = all(n.v == n.v_reset for n in neurons)
    optimizer.zero_grad()
    outputs = model(images)
    loss = nn.functional.cross_entropy(outputs, targets)
    loss.backward()
    optimizer.step()
    # Every batch starts from resting neurons, not from the last
    # batch's membrane potential (and its graph).
    reset_net(model)
    print(
        f"iteration {iteration}: loss {loss.item():.4f}, "
        f"started at rest: {fresh}"
    )
for name, p in model.named_parameters():
    print(f"{name}: grad non-zero {bool(p.grad.abs().sum() > 0)}")
