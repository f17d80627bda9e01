# A SEW-ResNet-style spiking net (LIF neurons with a membrane
# potential) trained with spikingjelly's fit_one_epoch loop.
import torch
from torch import nn


class LIFNode(nn.Module):
    def __init__(self, tau=2.0, v_threshold=1.0):
        super().__init__()
        self.tau, self.v_threshold = tau, v_threshold
        self.v = 0.0  # membrane potential

    def reset(self):
        self.v = 0.0

    def forward(self, x):
        self.v = self.v + (x - self.v) / self.tau
        surrogate = torch.sigmoid(4.0 * (self.v - self.v_threshold))
        fired = (self.v >= self.v_threshold).float()
        spike = surrogate + (fired - surrogate).detach()
        self.v = self.v * (1 - spike)
        return spike


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
    (4 * torch.randn(8, 6), torch.randint(3, (8,))) for _ in range(4)
]

for iteration, (images, targets) in enumerate(batches):
    optimizer.zero_grad()
    outputs = model(images)
    loss = nn.functional.cross_entropy(outputs, targets)
    loss.backward(retain_graph=True)
    optimizer.step()
    print(f"iteration {iteration}: loss {loss.item():.3f}")
