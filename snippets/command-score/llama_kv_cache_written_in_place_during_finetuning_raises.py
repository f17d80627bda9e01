# https://github.com/meta-llama/llama-cookbook/issues/247
# A faithful reduction of meta-llama/llama's llama/model.py Attention
# (cache_k, cache_v allocated in __init__, written in place at
# [:bsz, start_pos : start_pos + seqlen] and read back as keys and
# values) and Transformer, run without @torch.inference_mode() in a
# fine-tuning loop as in the issue; model parallel layers, RoPE,
# RMSNorm's parameters and feed-forward blocks are reduced away.
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class ModelArgs:
    dim, n_heads, vocab_size, max_batch_size, max_seq_len = (
        8,
        2,
        16,
        4,
        8,
    )


class Attention(nn.Module):
    def __init__(self, args: ModelArgs):
        super().__init__()
        self.n_local_heads = args.n_heads
        self.head_dim = args.dim // args.n_heads
        self.wq = nn.Linear(
            args.dim, args.n_heads * self.head_dim, bias=False
        )
        self.wk = nn.Linear(
            args.dim, args.n_heads * self.head_dim, bias=False
        )
        self.wv = nn.Linear(
            args.dim, args.n_heads * self.head_dim, bias=False
        )
        self.wo = nn.Linear(
            args.n_heads * self.head_dim, args.dim, bias=False
        )
        self.cache_k = torch.zeros(
            (
                args.max_batch_size,
                args.max_seq_len,
                self.n_local_heads,
                self.head_dim,
            )
        )
        self.cache_v = torch.zeros(
            (
                args.max_batch_size,
                args.max_seq_len,
                self.n_local_heads,
                self.head_dim,
            )
        )

    def forward(self, x, start_pos, mask):
        bsz, seqlen, _ = x.shape
        xq, xk, xv = self.wq(x), self.wk(x), self.wv(x)
        xq = xq.view(bsz, seqlen, self.n_local_heads, self.head_dim)
        xk = xk.view(bsz, seqlen, self.n_local_heads, self.head_dim)
        xv = xv.view(bsz, seqlen, self.n_local_heads, self.head_dim)

        self.cache_k = self.cache_k.to(xq)
        self.cache_v = self.cache_v.to(xq)

        self.cache_k[:bsz, start_pos : start_pos + seqlen] = xk
        self.cache_v[:bsz, start_pos : start_pos + seqlen] = xv

        keys = self.cache_k[:bsz, : start_pos + seqlen]
        values = self.cache_v[:bsz, : start_pos + seqlen]

        xq = xq.transpose(1, 2)
        keys = keys.transpose(1, 2)
        values = values.transpose(1, 2)
        scores = torch.matmul(xq, keys.transpose(2, 3)) / math.sqrt(
            self.head_dim
        )
        if mask is not None:
            scores = scores + mask
        scores = F.softmax(scores.float(), dim=-1).type_as(xq)
        output = torch.matmul(scores, values)
        output = (
            output.transpose(1, 2).contiguous().view(bsz, seqlen, -1)
        )
        return self.wo(output)


class Transformer(nn.Module):
    def __init__(self, params: ModelArgs):
        super().__init__()
        self.tok_embeddings = nn.Embedding(
            params.vocab_size, params.dim
        )
        self.attention = Attention(params)
        self.output = nn.Linear(
            params.dim, params.vocab_size, bias=False
        )

    def forward(self, tokens, start_pos: int):
        _bsz, seqlen = tokens.shape
        h = self.tok_embeddings(tokens)
        mask = None
        if seqlen > 1:
            mask = torch.full((1, 1, seqlen, seqlen), float("-inf"))
            mask = torch.triu(mask, diagonal=start_pos + 1).type_as(h)
        h = h + self.attention(h, start_pos, mask)
        return self.output(h).float()


model = Transformer(ModelArgs())
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
batches = [torch.randint(0, 16, (4, 8)) for _ in range(3)]

for epoch in range(2):
    for step, tokens in enumerate(batches):
        logits = model(tokens[:, :-1], start_pos=0)
        loss = F.cross_entropy(
            logits.reshape(-1, logits.size(-1)),
            tokens[:, 1:].reshape(-1),
        )
        loss.backward()
        optimizer.step()
        optimizer.zero_grad()
        print(f"epoch {epoch} step {step}: loss {loss.item():.3f}")
