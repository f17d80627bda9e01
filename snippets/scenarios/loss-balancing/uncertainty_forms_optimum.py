import torch

# One task's term, with s = log(sigma^2); e^-s is the weight on L.
forms = {
    "simplified": (1.0, 1.0),  # e^-s L + s
    "Eq. 7, regression": (0.5, 0.5),  # 0.5 e^-s L + 0.5 s
    "Eq. 7, classification": (1.0, 0.5),  # e^-s L + 0.5 s
}
L = 0.8  # the task's loss, held fixed while s settles
s = torch.linspace(-4, 4, 80001, dtype=torch.float64)
for name, (a, b) in forms.items():
    best = s[(a * torch.exp(-s) * L + b * s).argmin()]
    weight = a * torch.exp(-best)
    print(f"{name}: best s {best:.3f}, weight on L {weight:.3f}")
print(f"log L = {torch.tensor(L).log():.3f}")
print(f"log 2L = {torch.tensor(2 * L).log():.3f}")
