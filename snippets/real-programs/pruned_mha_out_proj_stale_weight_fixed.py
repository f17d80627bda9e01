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


def refresh_out_proj(att, args):
    # MultiheadAttention reads out_proj.weight without calling
    # out_proj, so out_proj's own pruning hook never runs: redo
    # weight = weight_orig * weight_mask before every attention call.
    out_proj = att.out_proj
    out_proj.weight = out_proj.weight_orig * out_proj.weight_mask


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
model.att.register_forward_pre_hook(refresh_out_proj)
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x, target = torch.randn(4, 5, 8), torch.randint(3, (4,))
out_proj = model.att.out_proj

for step in range(3):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), target)
    # The weight this step used, against a fresh product.
    fresh = out_proj.weight_orig * out_proj.weight_mask
    same = torch.equal(out_proj.weight, fresh)
    loss.backward()
    opt.step()
    print(
        f"step {step}: loss {loss.item():.4f}, "
        f"out_proj.weight is fresh: {same}"
    )

for name, p in model.named_parameters():
    print(f"{name}: grad non-zero {bool(p.grad.abs().sum() > 0)}")
print(
    "pruned entries still zero:",
    bool((out_proj.weight[out_proj.weight_mask == 0] == 0).all()),
)
