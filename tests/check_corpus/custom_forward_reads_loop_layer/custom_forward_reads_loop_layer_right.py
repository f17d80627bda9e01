# A BERT-style encoder with gradient checkpointing written the way many
# model files do it: create_custom_forward(layer_module) binds each
# layer when the call is made, so the backward's recomputation
# (use_reentrant=False) runs the layer the forward ran, with dropout's
# RNG state kept (the default).
import copy

import torch
import torch.nn.functional as F
from torch import nn
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)


class Layer(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.attn = nn.MultiheadAttention(d, 2, dropout=0.1, batch_first=True)
        self.ff = nn.Sequential(nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d))
        self.norm1, self.norm2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.dropout = nn.Dropout(0.1)

    def forward(self, h, attention_mask):
        a, _ = self.attn(h, h, h, key_padding_mask=attention_mask, need_weights=False)
        h = self.norm1(h + self.dropout(a))
        return self.norm2(h + self.dropout(self.ff(h)))


class Encoder(nn.Module):
    def __init__(self, vocab=50, d=16, n_layers=3, classes=3):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.layer = nn.ModuleList(Layer(d) for _ in range(n_layers))
        self.classifier = nn.Linear(d, classes)
        self.gradient_checkpointing = True

    def forward(self, ids, attention_mask):
        h = self.embed(ids)
        for layer_module in self.layer:
            if self.gradient_checkpointing and self.training:

                def create_custom_forward(module):
                    def custom_forward(*inputs):
                        return module(*inputs)

                    return custom_forward

                h = checkpoint(
                    create_custom_forward(layer_module), h, attention_mask, use_reentrant=False
                )
            else:
                h = layer_module(h, attention_mask)
        return self.classifier(h[:, 0])


model = Encoder()
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)
ids = torch.randint(0, 50, (6, 8, 12))
pad = torch.zeros(6, 8, 12, dtype=torch.bool)
pad[:, :, 9:] = torch.rand(6, 8, 3) < 0.5
labels = torch.randint(0, 3, (6, 8))
for step in range(6):
    off = copy.deepcopy(model)
    off.gradient_checkpointing = False
    rng = torch.get_rng_state()
    loss_off = F.cross_entropy(off(ids[step], pad[step]), labels[step])
    want = torch.autograd.grad(loss_off, list(off.parameters()))
    torch.set_rng_state(rng)

    loss = F.cross_entropy(model(ids[step], pad[step]), labels[step])
    optimizer.zero_grad()
    loss.backward()
    got = [p.grad for p in model.parameters()]
    same = all(map(torch.allclose, got, want))
    err = max(((g - w).norm() / w.norm()).item() for g, w in zip(got, want))
    optimizer.step()
    print(f"step {step}: loss {loss.item():.4f} (off {loss_off.item():.4f}), "
          f"grads = checkpointing off: {same}, worst relative error {err:.3f}")
