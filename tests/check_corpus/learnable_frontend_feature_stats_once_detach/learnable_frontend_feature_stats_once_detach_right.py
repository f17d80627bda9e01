# Keyword spotting with a learnable filterbank front end (SincNet- or
# LEAF-like): log band energies, standardized with the training set's
# per-band mean and std, then a small classifier.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
N, L, n_cls = 256, 400, 4
t = torch.arange(L) / 8000
freqs = torch.tensor([300.0, 700.0, 1500.0, 3000.0])
y_all = torch.randint(n_cls, (N,))
wave = torch.sin(2 * torch.pi * freqs[y_all, None] * t) * 3 + 1
wave = wave + torch.randn(N, L)
# the recordings are fixed data: their statistics are constants
wave = (wave - wave.mean()) / wave.std()

frontend = nn.Conv1d(1, 8, 33, stride=4, padding=16)
classifier = nn.Sequential(
    nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, n_cls)
)
opt = torch.optim.Adam(
    [*frontend.parameters(), *classifier.parameters()], lr=0.02
)


def band_energies(x):
    return frontend(x.unsqueeze(1)).pow(2).mean(-1).add(1e-4).log()


def rel(a, b):
    return ((a - b).norm() / b.norm()).item()


for step in range(8):
    # the band statistics follow the front end as it learns: taken
    # over the training set at this step's weights, in the graph
    feats = band_energies(wave)
    mean, std = feats.mean(0), feats.std(0)
    idx = torch.arange(step * 32, step * 32 + 32)
    f = (band_energies(wave[idx]) - mean) / std
    loss = F.cross_entropy(classifier(f), y_all[idx])
    with torch.no_grad():
        now = band_energies(wave)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(
        f"step {step}: loss {loss.item():.4f}; statistics used vs "
        f"the training set's now: mean {rel(mean, now.mean(0)):.3f}"
        f", std {rel(std, now.std(0)):.3f}"
    )
# the saved model stores the band statistics of its final front end
with torch.no_grad():
    feats = band_energies(wave)
    f = (feats - feats.mean(0)) / feats.std(0)
    final = F.cross_entropy(classifier(f), y_all)
print(f"training-set loss with the final statistics {final:.4f}")
