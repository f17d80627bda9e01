# Keras's TokenLearner example on a torch backend: a Keras-like Layer
# builds lazily on its first call, and PositionEmbedding encoded its
# positions once in build(). The 2nd step raised the backward-twice
# error; an answer said to detach what build() made.
import torch
from torch import nn

torch.manual_seed(0)


class Layer(nn.Module):
    """Build on the first call, from the input's shape (as Keras)."""

    def __init__(self):
        super().__init__()
        self.built = False

    def build(self, shape):
        pass

    def forward(self, x):
        if not self.built:
            self.build(x.shape)
            self.built = True
        return self.call(x)


class PositionEmbedding(Layer):
    def __init__(self, max_len, dim):
        super().__init__()
        self.embedding = nn.Embedding(max_len, dim)

    def build(self, shape):
        positions = torch.arange(shape[1])
        self.encoded = self.embedding(positions).detach()

    def call(self, x):
        return x + self.encoded


class TinyViT(Layer):
    def __init__(self, patch_dim, dim, classes):
        super().__init__()
        self.patches = nn.Linear(patch_dim, dim)
        self.position = PositionEmbedding(16, dim)
        self.mix = nn.Sequential(nn.LayerNorm(dim), nn.Linear(dim, dim),
                                 nn.GELU())
        self.head = nn.Linear(dim, classes)

    def call(self, x):
        tokens = self.position(self.patches(x))
        return self.head(self.mix(tokens).mean(1))


model = TinyViT(patch_dim=12, dim=16, classes=3)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2, fused=True)
x, y = torch.randn(5, 8, 9, 12), torch.randint(3, (5, 8))
before = model.position.embedding.weight.detach().clone()
for step in range(5):
    loss = nn.functional.cross_entropy(model(x[step]), y[step])
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    grad = model.position.embedding.weight.grad
    norm = None if grad is None else f"{grad.norm().item():.4f}"
    print(f"step {step}: loss {loss.item():.4f}, position embedding "
          f"grad norm: {norm}")
    with torch.no_grad():
        acc = (model(x[step]).argmax(1) == y[step]).float().mean()
    print(f"  accuracy on this batch after the step: {acc.item():.3f}")
moved = (model.position.embedding.weight - before).abs().max().item()
print(f"position embedding largest change: {moved:.4f}")
