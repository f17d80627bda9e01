import torch
from torch import nn

torch.manual_seed(0)


class MultiViewClassifier(nn.Module):
    """Encodes several augmented views of each sample and classifies
    their average."""

    def __init__(self):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(6, 16), nn.ReLU())
        self.head = nn.Linear(16, 2)
        self.total = torch.zeros(1, 16)

    def forward(self, views):
        for v in views:
            self.total = self.total + self.encoder(v)
        return self.head(self.total / len(views))


model = MultiViewClassifier()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
data = [
    (torch.randn(8, 6), torch.randint(0, 2, (8,))) for _ in range(3)
]

for step, (x, y) in enumerate(data):
    views = [x + 0.1 * torch.randn_like(x) for _ in range(3)]
    optimizer.zero_grad()
    loss = nn.functional.cross_entropy(model(views), y)
    loss.backward()
    optimizer.step()
    print(f"step {step}: loss {loss.item():.3f}")
