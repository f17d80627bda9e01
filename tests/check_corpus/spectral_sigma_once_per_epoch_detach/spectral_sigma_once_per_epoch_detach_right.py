# A critic with spectral normalisation written by hand: W / sigma(W),
# sigma from one power-iteration step in each forward, its vector u
# carried from step to step (updated under no_grad).
import torch
from torch import nn
from torch.nn.functional import linear, normalize

torch.manual_seed(0)


class SNLinear(nn.Module):
    def __init__(self, in_f, out_f):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(out_f, in_f) * 0.3)
        self.bias = nn.Parameter(torch.zeros(out_f))
        self.register_buffer("u", normalize(torch.randn(out_f), dim=0))
        for _ in range(10):  # warm start of the power iteration
            self.power_iteration()

    def power_iteration(self):
        with torch.no_grad():  # u and v are not differentiated
            v = normalize(self.weight.T @ self.u, dim=0)
            self.u.copy_(normalize(self.weight @ v, dim=0))
        return self.u @ self.weight @ v

    def forward(self, x):
        sigma = self.power_iteration()
        self.used = sigma.item()
        return linear(x, self.weight / sigma, self.bias)


critic = nn.Sequential(SNLinear(6, 32), nn.LeakyReLU(0.2),
                       SNLinear(32, 1))
optimizer = torch.optim.Adam(critic.parameters(), lr=0.05)
x = torch.randn(3, 4, 32, 6)
y = (x[..., :3] * 2).sum(-1, keepdim=True)
layer = critic[0]
for epoch in range(3):
    for batch in range(4):
        loss = nn.functional.mse_loss(critic(x[epoch, batch]),
                                      y[epoch, batch])
        true = torch.linalg.matrix_norm(layer.weight.detach(), 2)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        rel = abs(layer.used - true.item()) / true.item()
        print(f"epoch {epoch} batch {batch}: loss {loss.item():.3f}, "
              f"sigma used {layer.used:.3f} vs sigma(W) "
              f"{true.item():.3f} (relative {rel:.3f})")
