# Reduced from a custom model trained by a Trainer whose training step calls loss.backward()
# on the returned loss, while the model also called backward itself
# (github.com/huggingface/transformers/issues/7662). Wrong fix: retain_graph=True in the model.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)

class NgramLM(nn.Module):
    def __init__(self, V=16, D=12):
        super().__init__()
        self.emb = nn.Embedding(V, D)
        self.rnn = nn.GRU(D, D, batch_first=True)
        self.out = nn.Linear(D, V)
    def forward(self, ids):
        h, _ = self.rnn(self.emb(ids[:, :-1]))
        logits = self.out(h)
        loss = F.cross_entropy(logits.reshape(-1, logits.shape[-1]), ids[:, 1:].reshape(-1))
        loss.backward(retain_graph=True)
        return loss

class MiniTrainer:
    def __init__(self, model, lr):
        self.model = model
        self.opt = torch.optim.SGD(model.parameters(), lr=lr)
    def training_step(self, batch):
        loss = self.model(batch)
        loss.backward()
        return loss.detach()
    def train(self, batches, epochs):
        for _ in range(epochs):
            for batch in batches:
                self.opt.zero_grad()
                loss = self.training_step(batch)
                self.opt.step()
        return loss

data = torch.randint(0, 16, (12, 8, 10))
data[:, :, 1::2] = (data[:, :, 0::2] + 1) % 16
trainer = MiniTrainer(NgramLM(), lr=0.5)
loss = trainer.train(data, epochs=4)
print(f"final loss {loss.item():.4f}")
