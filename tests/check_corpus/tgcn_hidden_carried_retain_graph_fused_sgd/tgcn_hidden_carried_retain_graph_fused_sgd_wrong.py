# T-GCN (graph conv + GRU gates: update, reset, candidate) trained snapshot by snapshot,
# passing the previous hidden state to the next timestamp.
import torch
import torch.nn as nn

torch.manual_seed(0)
N, F_IN, HID, T = 12, 3, 16, 8

adj = (torch.rand(N, N) < 0.3).float()
adj = ((adj + adj.t()) > 0).float() + torch.eye(N)
deg = adj.sum(1)
a_hat = adj / torch.sqrt(deg[:, None] * deg[None, :])


class GCN(nn.Module):
    def __init__(self, fin, fout):
        super().__init__()
        self.lin = nn.Linear(fin, fout)

    def forward(self, x):
        return a_hat @ self.lin(x)


class TGCN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv_z, self.lin_z = GCN(F_IN, HID), nn.Linear(2 * HID, HID)
        self.conv_r, self.lin_r = GCN(F_IN, HID), nn.Linear(2 * HID, HID)
        self.conv_h, self.lin_h = GCN(F_IN, HID), nn.Linear(2 * HID, HID)
        self.out = nn.Linear(HID, 1)

    def forward(self, x, h):
        z = torch.sigmoid(self.lin_z(torch.cat([self.conv_z(x), h], 1)))
        r = torch.sigmoid(self.lin_r(torch.cat([self.conv_r(x), h], 1)))
        h_tilde = torch.tanh(self.lin_h(torch.cat([self.conv_h(x), h * r], 1)))
        h = z * h + (1 - z) * h_tilde
        return self.out(torch.relu(h)).squeeze(-1), h


signal = torch.cumsum(torch.randn(T + 1, N, F_IN) * 0.3, 0)
snapshots = [(signal[t], signal[t + 1, :, 0]) for t in range(T)]

model = TGCN()
optimizer = torch.optim.SGD(model.parameters(), lr=0.05, fused=True)
h = torch.zeros(N, HID)
for t, (x, y) in enumerate(snapshots):
    y_hat, h = model(x, h)
    loss = torch.mean((y_hat - y) ** 2)
    optimizer.zero_grad()
    loss.backward(retain_graph=True)
    optimizer.step()
    print(f"snapshot {t} mse {loss.item():.4f}")
