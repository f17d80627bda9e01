import torch
from workloads import SavedTensors, Tagger, tbptt

torch.manual_seed(0)
model = Tagger()
# One sequence of 60 steps, fed to the LSTM 10 steps at a time.
x, y = torch.randn(8, 60, 32), torch.randint(10, (8, 60))

runs = {}
for name, retain, detach in [
    ("retain, carried", True, False),  # the "fix" that leaks
    ("retain, detached", True, True),
    ("the fix: detach", False, True),
]:
    with SavedTensors(model) as saved:
        steps = tbptt(model, x, y, retain, detach)
        runs[name] = [saved.held() for _ in steps]

print("bytes of saved tensors held after each chunk's backward")
print("chunk" + "".join(f"{name:>18}" for name in runs))
for chunk, row in enumerate(zip(*runs.values())):
    print(f"{chunk:5}" + "".join(f"{n:>18,}" for n in row))
