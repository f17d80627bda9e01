# Spiking classifier with stateful LIF neurons (spikingjelly-style), trained with an ordinary
# epoch/iteration loop over a fixed training set.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
T, IN, HID, CLS, B = 4, 20, 32, 3, 16


class SigmoidSurrogateSpike(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return (x >= 0).float()

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        s = torch.sigmoid(4.0 * x)
        return grad * 4.0 * s * (1 - s)


class LIFNode(nn.Module):
    def __init__(self, tau=2.0, v_threshold=0.5):
        super().__init__()
        self.tau, self.v_threshold = tau, v_threshold
        self.v = 0.0

    def reset(self):
        self.v = 0.0

    def forward(self, x):
        self.v = self.v + (x - self.v) / self.tau
        spike = SigmoidSurrogateSpike.apply(self.v - self.v_threshold)
        self.v = self.v * (1 - spike)
        return spike


def reset_net(net):
    for m in net.modules():
        if isinstance(m, LIFNode):
            m.reset()


class SNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1, self.lif1 = nn.Linear(IN, HID), LIFNode()
        self.fc2, self.lif2 = nn.Linear(HID, CLS), LIFNode()

    def forward(self, x):
        out = 0
        for _ in range(T):
            out = out + self.lif2(self.fc2(self.lif1(self.fc1(x))))
        return out / T


protos = torch.randn(CLS, IN) * 2
labels = torch.randint(0, CLS, (64,))
inputs = (protos[labels] + torch.randn(64, IN)) * 1.5
train_loader = [(inputs[i:i + B], labels[i:i + B]) for i in range(0, 64, B)]

model = SNN()
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)
for epoch in range(2):
    model.train()
    for iteration, (img, label) in enumerate(train_loader):
        pre_label = model(img)
        loss_total = F.mse_loss(pre_label, F.one_hot(label, CLS).float())
        optimizer.zero_grad()
        loss_total.backward()
        optimizer.step()
        for m in model.modules():
            if isinstance(m, LIFNode):
                m.v = m.v.detach()
        print(f"epoch {epoch} iter {iteration} loss {loss_total.item():.4f}")
