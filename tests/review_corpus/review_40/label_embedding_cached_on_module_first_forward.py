# written (realistic): text classifier that scores inputs against label-description
# embeddings. The module caches the encoded label matrix on itself at the first
# forward ("labels never change"), but the label encoder is trainable, so the
# cache holds batch 0's graph. Both the input encoder and label_encoder must train.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class LabelAttentionClassifier(nn.Module):
    def __init__(self, d_in=12, d_lab=6, d=16, n_labels=4):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(d_in, d), nn.Tanh())
        self.label_encoder = nn.Linear(d_lab, d)
        self.label_text = torch.randn(n_labels, d_lab)  # fixed label descriptions
        self._label_emb = None

    def forward(self, x):
        if self._label_emb is None:  # cache on the module
            self._label_emb = self.label_encoder(self.label_text)
        return self.encoder(x) @ self._label_emb.t()


model = LabelAttentionClassifier()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for step in range(4):
    x = torch.randn(32, 12)
    y = (x[:, 0] > 0).long() + 2 * (x[:, 1] > 0).long()
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()  # step 1: RuntimeError (cached label embeddings)
    opt.step()
    print(step, loss.item())
