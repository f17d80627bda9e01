# DeepCTR-Torch's BaseModel: the regularization loss is added to
# every batch's loss in fit().
import torch
from torch import nn

torch.manual_seed(0)
FIELDS = {"user_id": 6, "item_id": 8, "cate_id": 4}


class DeepFM(nn.Module):
    def __init__(self, l2_reg_embedding=0.1):
        super().__init__()
        self.embedding_dict = nn.ModuleDict(
            {f: nn.Embedding(n, 4) for f, n in FIELDS.items()}
        )
        self.dnn = nn.Sequential(nn.Linear(12, 16), nn.ReLU())
        self.out = nn.Linear(16, 1)
        self.l2_reg_embedding = l2_reg_embedding

    def add_regularization_loss(self, weights, l2):
        return l2 * sum(w.pow(2).sum() for w in weights)

    def forward(self, X):
        embs = [
            self.embedding_dict[f](X[:, i])
            for i, f in enumerate(FIELDS)
        ]
        fm = torch.stack(embs, 1).sum(1).pow(2).sum(1, keepdim=True)
        deep = self.out(self.dnn(torch.cat(embs, 1)))
        return torch.sigmoid(deep + fm)

    def fit(self, X, y, epochs):
        optim = torch.optim.Adagrad(self.parameters(), lr=0.05)
        for epoch in range(epochs):
            loss = nn.functional.binary_cross_entropy(self(X), y)
            reg_loss = self.add_regularization_loss(
                [e.weight for e in self.embedding_dict.values()],
                self.l2_reg_embedding,
            )
            total_loss = loss + reg_loss
            optim.zero_grad()
            total_loss.backward()
            optim.step()
        print(f"epoch {epoch}: total loss {total_loss.item():.3f}")


X = torch.stack(
    [torch.randint(0, n, (64,)) for n in FIELDS.values()], 1
)
y = torch.randint(0, 2, (64, 1)).float()
DeepFM().fit(X, y, epochs=5)
