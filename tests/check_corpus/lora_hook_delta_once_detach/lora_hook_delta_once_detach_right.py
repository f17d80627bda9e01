# LoRA by forward hooks on a frozen backbone: each hooked Linear adds
# x @ A.T @ B.T to its output, computed in the hook on every call;
# the backbone is frozen by requires_grad_(False).
import torch
from torch import nn

torch.manual_seed(0)


class LoRAAdapter(nn.Module):
    def __init__(self, layer, rank=2, alpha=4.0):
        super().__init__()
        out_f, in_f = layer.weight.shape
        self.lora_A = nn.Parameter(torch.randn(rank, in_f) * 0.1)
        self.lora_B = nn.Parameter(torch.randn(out_f, rank) * 0.1)
        self.scale = alpha / rank
        layer.register_forward_hook(self.hook)

    def hook(self, module, args, output):
        (x,) = args
        low_rank = x @ self.lora_A.T @ self.lora_B.T
        return output + self.scale * low_rank


backbone = nn.Sequential(nn.Linear(20, 32), nn.ReLU(),
                         nn.Linear(32, 32), nn.ReLU())
backbone.requires_grad_(False)  # the pretrained weights stay frozen
adapters = nn.ModuleList(
    LoRAAdapter(backbone[i]) for i in (0, 2))
head = nn.Linear(32, 4)
optimizer = torch.optim.AdamW(
    [*adapters.parameters(), *head.parameters()], lr=1e-2)
x, y = torch.randn(5, 16, 20), torch.randint(4, (5, 16))
before = adapters[0].lora_A.detach().clone()
for step in range(5):
    loss = nn.functional.cross_entropy(head(backbone(x[step])), y[step])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    none = [n for n, p in adapters.named_parameters() if p.grad is None]
    print(f"step {step}: loss {loss.item():.4f}, adapter params with "
          f"grad None: {none}")
moved = (adapters[0].lora_A - before).abs().max().item()
print(f"adapters[0].lora_A largest change: {moved:.4f}")
