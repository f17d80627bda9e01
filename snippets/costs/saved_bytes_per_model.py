import torch
from workloads import MODELS, SavedTensors, loss_of

torch.manual_seed(0)
print("bytes of saved tensors held after each call, batch of 32")
print(
    f"{'model':5} {'weights':>10} {'forward':>11}"
    f" {'backward()':>11} {'retain_graph=True':>18}"
)
for name, make in MODELS.items():
    after = {}
    for retain in (False, True):
        model, x, y = make(batch=32)
        with SavedTensors(model) as saved:
            loss = loss_of(model, x, y)
        forward = saved.held()
        loss.backward(retain_graph=retain)
        after[retain] = saved.held()  # `loss` is still referenced
    # For scale: the parameters themselves are not counted above.
    weights = sum(p.nbytes for p in model.parameters())
    print(
        f"{name:5} {weights:>10,} {forward:>11,}"
        f" {after[False]:>11,} {after[True]:>18,}"
    )
