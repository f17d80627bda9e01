"""timm's LeViT (levit_128) run through the TorchDynamo benchmark's
training iterations in train mode, where LeViT gathers its attention
biases at every forward (the benchmark later ran timm models'
accuracy checks in train(), pytorch/pytorch#89780).

Source: https://github.com/pytorch/torchdynamo/issues/1845
The benchmark wanted to run levit_128's training iteration (forward,
backward, optimizer step) repeatedly with the model in eval mode,
as it did for every timm model; it raises even on eager.
Kept: LeViT's Attention with its learned relative-position biases,
gathered by attention_bias_idxs and cached per device in self.ab
when not training (train() clears the cache), and the benchmark's
forward_and_backward_pass (zero_grad, forward, loss reduced to a
scalar, backward, SGD step); changed: one attention block on a
3x3 grid of tokens, no BatchNorm, random input.
"""

import itertools

import torch
from torch import nn

torch.manual_seed(0)
RES, DIM, HEADS, KEY_DIM = 3, 16, 2, 4


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = KEY_DIM**-0.5
        self.d = 2 * KEY_DIM
        self.qkv = nn.Linear(DIM, HEADS * (2 * KEY_DIM + self.d))
        self.proj = nn.Linear(HEADS * self.d, DIM)
        points = list(itertools.product(range(RES), range(RES)))
        offsets, idxs = {}, []
        for p1 in points:
            for p2 in points:
                off = (abs(p1[0] - p2[0]), abs(p1[1] - p2[1]))
                idxs.append(offsets.setdefault(off, len(offsets)))
        self.attention_biases = nn.Parameter(
            0.1 * torch.randn(HEADS, len(offsets))
        )
        n = len(points)
        self.register_buffer(
            "attention_bias_idxs", torch.tensor(idxs).view(n, n)
        )
        self.ab = {}

    @torch.no_grad()
    def train(self, mode=True):
        super().train(mode)
        if mode and self.ab:
            self.ab = {}  # clear ab cache
        return self

    def get_attention_biases(self, device):
        if self.training:
            return self.attention_biases[:, self.attention_bias_idxs]
        key = str(device)
        if key not in self.ab:
            self.ab[key] = self.attention_biases[
                :, self.attention_bias_idxs
            ]
        return self.ab[key]

    def forward(self, x):
        b, n, _ = x.shape
        qkv = self.qkv(x).view(b, n, HEADS, -1)
        q, k, v = qkv.split([KEY_DIM, KEY_DIM, self.d], dim=3)
        q, k, v = (t.permute(0, 2, 1, 3) for t in (q, k, v))
        attn = q @ k.transpose(-2, -1) * self.scale
        attn = attn + self.get_attention_biases(x.device)
        x = (attn.softmax(dim=-1) @ v).transpose(1, 2)
        return self.proj(x.reshape(b, n, HEADS * self.d))


model = nn.Sequential(nn.Linear(5, DIM), Attention(), nn.Linear(DIM, 4))
block = model[1]
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
inputs = torch.randn(2, RES * RES, 5)
model.train()  # LeViT gathers the biases at every forward


def forward_and_backward_pass(mod, inputs):
    optimizer.zero_grad(True)
    pred = mod(inputs.clone())
    loss = pred.sum() / pred.numel()
    loss.backward()
    # the biases' gradient from a new forward of the current model
    again = mod(inputs.clone())
    (ref,) = torch.autograd.grad(
        again.sum() / again.numel(), block.attention_biases
    )
    fresh = torch.allclose(block.attention_biases.grad, ref)
    optimizer.step()
    return loss, fresh


for i in range(2):
    loss, fresh = forward_and_backward_pass(model, inputs)
    print(
        f"iteration {i}: loss {loss.item():.4f}, "
        f"bias grad from the current biases: {fresh}"
    )
