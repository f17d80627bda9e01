# Truncated BPTT over long sequences with a learned initial state: each
# sequence starts from h0, and the state carries over between chunks.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
B, H, T, K = 8, 16, 40, 10
gru = nn.GRU(1, H, batch_first=True)
readout = nn.Linear(H, 1)
h0 = nn.Parameter(torch.zeros(1, 1, H))
opt = torch.optim.Adam(
    [*gru.parameters(), *readout.parameters(), h0], lr=0.01
)
t = torch.linspace(0, 6, T + 1)
phase = torch.rand(2, B, 1) * 3
series = torch.sin(t + phase).unsqueeze(-1)
h0_start = h0.detach().clone()

step = 0
for seq in range(2):
    h = h0.expand(1, B, H).contiguous()
    for c in range(0, T, K):
        # repackage_hidden, as the word-language-model example places
        # it, after the 2nd chunk asked to backward a second time
        h = h.detach()
        x = series[seq, :, c : c + K]
        target = series[seq, :, c + 1 : c + K + 1]
        out, h = gru(x, h)
        loss = F.mse_loss(readout(out), target)
        opt.zero_grad()
        loss.backward()
        g = "None" if h0.grad is None else f"{h0.grad.norm():.4f}"
        print(
            f"step {step} (sequence {seq}, chunk {c // K}): "
            f"loss {loss.item():.4f}, h0 grad {g}"
        )
        opt.step()
        step += 1
print(f"h0 moved by {(h0.detach() - h0_start).norm():.4f}")
