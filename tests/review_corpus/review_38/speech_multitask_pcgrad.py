import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

N_MFCC, FRAMES, N_KEYWORDS, N_SPEAKERS = 13, 40, 5, 8


def synth_batch(bs=32):
    kw = torch.randint(0, N_KEYWORDS, (bs,))
    spk = torch.randint(0, N_SPEAKERS, (bs,))
    t = torch.linspace(0, 1, FRAMES)
    kw_pattern = torch.sin(6.28 * (kw.float().unsqueeze(1) + 1) * t).unsqueeze(1)
    spk_timbre = (spk.float().unsqueeze(1) / N_SPEAKERS - 0.5) * torch.linspace(-1, 1, N_MFCC)
    mfcc = (
        kw_pattern * torch.ones(1, N_MFCC, 1)
        + spk_timbre.unsqueeze(2)
        + 0.3 * torch.randn(bs, N_MFCC, FRAMES)
    )
    return mfcc, kw, spk


class SharedEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv1d(N_MFCC, 32, 5, padding=2),
            nn.ReLU(),
            nn.Conv1d(32, 32, 5, padding=2),
            nn.ReLU(),
        )

    def forward(self, x):
        return self.conv(x).mean(-1)


encoder = SharedEncoder()
kw_head = nn.Linear(32, N_KEYWORDS)
spk_head = nn.Linear(32, N_SPEAKERS)
shared = list(encoder.parameters())
all_params = shared + list(kw_head.parameters()) + list(spk_head.parameters())
optimizer = torch.optim.Adam(all_params, lr=1e-3)


def project_conflicting(g_a, g_b):
    dot = torch.dot(g_a, g_b)
    if dot < 0:
        g_a = g_a - dot / (g_b.norm() ** 2 + 1e-12) * g_b
    return g_a


for step in range(150):
    mfcc, kw, spk = synth_batch()
    z = encoder(mfcc)
    losses = [F.cross_entropy(kw_head(z), kw), F.cross_entropy(spk_head(z), spk)]

    optimizer.zero_grad()
    task_grads = []
    for loss in losses:
        for p in shared:
            p.grad = None
        loss.backward()
        task_grads.append(torch.cat([p.grad.flatten() for p in shared]))

    g_kw = project_conflicting(task_grads[0], task_grads[1])
    g_spk = project_conflicting(task_grads[1], task_grads[0])
    merged = g_kw + g_spk
    offset = 0
    for p in shared:
        n = p.numel()
        p.grad = merged[offset : offset + n].view_as(p).clone()
        offset += n
    optimizer.step()
    if step % 50 == 0:
        print(step, [round(v.item(), 3) for v in losses])
