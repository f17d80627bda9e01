# https://github.com/speechbrain/speechbrain/issues/1160
# Reduced from the pruned Transformer ASR model: one attention
# block and an output layer, pruned with torch.nn.utils.prune.
import torch
import torch.nn.utils.prune as prune
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.att = nn.MultiheadAttention(8, 2, batch_first=True)
        self.proj = nn.Linear(8, 3)

    def forward(self, x):
        out, _ = self.att(x, x, x)
        return self.proj(out).mean(dim=1)


torch.manual_seed(0)
model = Net()
parameters_to_prune = [
    (model.att, "in_proj_weight"),
    (model.att.out_proj, "weight"),
    (model.proj, "weight"),
]
prune.global_unstructured(
    parameters_to_prune,
    pruning_method=prune.L1Unstructured,
    amount=0.5,
)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x, target = torch.randn(4, 5, 8), torch.randint(3, (4,))
out_proj = model.att.out_proj
used_at_start = out_proj.weight.detach().clone()

for step in range(3):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), target)
    loss.backward(retain_graph=True)  # the "fix": no error any more
    opt.step()
    print(f"step {step}: loss {loss.item():.4f}")

fresh = out_proj.weight_orig * out_proj.weight_mask
print("weight_orig moved:", not torch.equal(fresh, used_at_start))
print(
    "out_proj.weight moved:",
    not torch.equal(out_proj.weight, used_at_start),
)
