# source: written blind
# LoRA fine-tuning of a frozen pretrained MLP: low-rank adapters (A, B) on the
# frozen linear layers plus a fresh classification head. Adapters and head use
# separate optimizers (different learning rates / weight decay). The author
# intended one update per batch in which both parameter groups move along the
# gradient of the same classification loss.
import torch
import torch.nn as nn
import torch.nn.functional as F


class LoRALinear(nn.Module):
    def __init__(self, base: nn.Linear, rank=4, alpha=8.0):
        super().__init__()
        self.base = base
        for p in self.base.parameters():
            p.requires_grad_(False)
        self.lora_A = nn.Parameter(torch.randn(rank, base.in_features) * 0.01)
        self.lora_B = nn.Parameter(torch.zeros(base.out_features, rank))
        self.scaling = alpha / rank

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t()) @ self.lora_B.t() * self.scaling


class AdaptedModel(nn.Module):
    def __init__(self, pretrained: nn.Sequential, n_classes):
        super().__init__()
        self.fc1 = LoRALinear(pretrained[0])
        self.fc2 = LoRALinear(pretrained[2])
        self.head = nn.Linear(pretrained[2].out_features, n_classes)

    def forward(self, x):
        return self.head(F.relu(self.fc2(F.relu(self.fc1(x)))))


def lora_parameters(model):
    return [p for n, p in model.named_parameters() if "lora_" in n]


def optimizer_step(optimizers, loss):
    for optimizer in optimizers:
        optimizer.zero_grad()
    loss.backward()
    for optimizer in optimizers:
        optimizer.step()


def main():
    torch.manual_seed(0)
    pretrained = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 32))
    model = AdaptedModel(pretrained, n_classes=4)
    opt_lora = torch.optim.AdamW(lora_parameters(model), lr=5e-3, weight_decay=0.0)
    opt_head = torch.optim.AdamW(model.head.parameters(), lr=1e-2, weight_decay=0.01)
    proto = torch.randn(4, 12)
    for step in range(10):
        y = torch.randint(0, 4, (64,))
        x = proto[y] + 0.5 * torch.randn(64, 12)
        logits = model(x)
        loss = F.cross_entropy(logits, y)
        optimizer_step([opt_lora, opt_head], loss)
        acc = (logits.argmax(1) == y).float().mean()
        print(f"step {step} loss {loss.item():.4f} acc {acc:.3f}")


if __name__ == "__main__":
    main()
