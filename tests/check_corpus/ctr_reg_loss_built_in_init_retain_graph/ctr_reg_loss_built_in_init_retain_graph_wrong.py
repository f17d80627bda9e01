# https://github.com/shenweichen/DeepCTR-Torch/issues/69
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class BaseModel(nn.Module):
    def __init__(self, vocab_sizes, embedding_size=4, l2_reg_embedding=0.05):
        super().__init__()
        self.reg_loss = torch.zeros((1,))
        self.embedding_dict = nn.ModuleDict(
            {f"C{i}": nn.Embedding(v, embedding_size) for i, v in enumerate(vocab_sizes)})
        for tensor in self.embedding_dict.values():
            nn.init.normal_(tensor.weight, mean=0, std=0.5)
        self.dnn = nn.Sequential(nn.Linear(len(vocab_sizes) * embedding_size, 16), nn.ReLU(), nn.Linear(16, 1))
        self.add_regularization_loss(self.embedding_dict.parameters(), l2_reg_embedding)
        self.optim = torch.optim.Adam(self.parameters(), lr=0.2, fused=True)

    def add_regularization_loss(self, weight_list, weight_decay, p=2):
        reg_loss = torch.zeros((1,))
        for w in weight_list:
            reg_loss = reg_loss + torch.norm(w, p=p)
        self.reg_loss = self.reg_loss + weight_decay * reg_loss

    def forward(self, X):
        emb = torch.cat([self.embedding_dict[f"C{i}"](X[:, i]) for i in range(X.shape[1])], dim=-1)
        return torch.sigmoid(self.dnn(emb)).squeeze(-1)

    def fit(self, x, y, batch_size=64, epochs=3):
        emb_weights = [t.weight for t in self.embedding_dict.values()]
        step = 0
        for epoch in range(epochs):
            for i in range(0, len(x), batch_size):
                y_pred = self(x[i:i + batch_size])
                self.optim.zero_grad()
                loss = F.binary_cross_entropy(y_pred, y[i:i + batch_size], reduction="sum")
                reg_loss = self.reg_loss
                total_loss = loss + reg_loss
                used = torch.cat([g.flatten() for g in torch.autograd.grad(reg_loss, emb_weights, retain_graph=True)])
                fresh_reg = 0.05 * sum(torch.norm(w, p=2) for w in emb_weights)
                fresh = torch.cat([g.flatten() for g in torch.autograd.grad(fresh_reg, emb_weights)])
                total_loss.backward(retain_graph=True)
                self.optim.step()
                print(f"step {step}: reg term used {reg_loss.item():.4f} vs reg of current weights "
                      f"{fresh_reg.item():.4f}, rel diff of reg gradient {((used - fresh).norm() / fresh.norm()).item():.3f}")
                step += 1


vocab_sizes = [20, 20, 20]
x = torch.stack([torch.randint(0, v, (384,)) for v in vocab_sizes], dim=1)
y = (torch.randn(60)[x].sum(1) + 0.3 * torch.randn(384) > 0).float()
model = BaseModel(vocab_sizes)
model.fit(x, y)
