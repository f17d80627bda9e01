"""RevTorch's fix: eagerly_discard_variables=False keeps the encoder's
graph through the blocks' own backward() calls.

Source: https://github.com/RobinBruegger/RevTorch/issues/7
The user wanted an encoder-decoder whose decoder is a reversible
sequence (revtorch's ReversibleSequence) that attends to the encoder's
output, training the encoder and the decoder together.
"""

import torch
from revtorch import ReversibleBlock, ReversibleSequence
from torch import nn

torch.manual_seed(0)
DIM, HALF, VOCAB = 16, 8, 20


class CrossAttention(nn.Module):
    """f of a decoder block: attends to the encoder's output (keys)."""

    def __init__(self):
        super().__init__()
        self.to_q = nn.Linear(HALF, HALF)
        self.keys = None  # set before each forward, as reformer did

    def forward(self, x):
        scores = self.to_q(x) @ self.keys.transpose(-1, -2)
        return torch.softmax(scores / HALF**0.5, -1) @ self.keys


class FeedForward(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(HALF, HALF), nn.GELU())

    def forward(self, x):
        return self.net(x)


class EncDec(nn.Module):
    def __init__(self, depth=2):
        super().__init__()
        self.src_emb = nn.Embedding(VOCAB, HALF)
        self.encoder = nn.Sequential(nn.Linear(HALF, HALF), nn.Tanh())
        self.tgt_emb = nn.Embedding(VOCAB, DIM)
        self.attn = nn.ModuleList(
            CrossAttention() for _ in range(depth)
        )
        self.decoder = ReversibleSequence(
            nn.ModuleList(
                ReversibleBlock(f, FeedForward(), split_along_dim=-1)
                for f in self.attn
            ),
            eagerly_discard_variables=False,
        )
        self.to_logits = nn.Linear(DIM, VOCAB)

    def forward(self, src, tgt):
        keys = self.encoder(self.src_emb(src))
        for f in self.attn:
            f.keys = keys
        return self.to_logits(self.decoder(self.tgt_emb(tgt)))


def plain_decoder(model, x):
    """The same blocks run as an ordinary (non-reversible) network."""
    for block in model.decoder.reversible_blocks:
        x1, x2 = torch.chunk(x, 2, dim=-1)
        y1 = x1 + block.f_block(x2)
        x = torch.cat([y1, x2 + block.g_block(y1)], -1)
    return x


def encoder_grad(model, src, tgt, reversible):
    model.zero_grad()
    if reversible:
        logits = model(src, tgt)
    else:
        keys = model.encoder(model.src_emb(src))
        for f in model.attn:
            f.keys = keys
        x = plain_decoder(model, model.tgt_emb(tgt))
        logits = model.to_logits(x)
    loss = nn.functional.cross_entropy(
        logits.flatten(0, 1), tgt.flatten()
    )
    loss.backward()
    return loss, model.encoder[0].weight.grad.clone()


model = EncDec()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
src = torch.randint(0, VOCAB, (4, 6))
tgt = torch.randint(0, VOCAB, (4, 5))
for step in range(3):
    _, want = encoder_grad(model, src, tgt, reversible=False)
    loss, got = encoder_grad(model, src, tgt, reversible=True)
    same = torch.allclose(got, want, atol=1e-5)
    print(
        f"step {step}: loss {loss.item():.3f}, encoder grad norm "
        f"{got.norm():.4f}, same as the plain network: {same}"
    )
    opt.step()
