# source: written blind
# Attention summarizer with a coverage mechanism (See et al., 2017 style).
# The author intended: for every document the coverage vector starts at zero,
# accumulates the attention distributions of the decoder steps of THAT
# document, feeds into the attention scores, and gives the coverage loss
# sum_i min(a_t, c_t). The decoder keeps coverage on the module so step() can
# be called token by token at inference time.
import torch
import torch.nn as nn
import torch.nn.functional as F

VOCAB, BOS = 30, 1


class CoverageAttnDecoder(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.W_h = nn.Linear(dim, dim, bias=False)
        self.W_s = nn.Linear(dim, dim)
        self.w_c = nn.Linear(1, dim, bias=False)
        self.v = nn.Linear(dim, 1, bias=False)
        self.cell = nn.GRUCell(2 * dim, dim)
        self.out = nn.Linear(2 * dim, VOCAB)
        self.coverage = None

    def step(self, y_emb, h, enc_out, enc_feat):
        if self.coverage is None:
            self.coverage = enc_out.new_zeros(enc_out.shape[:2])
        scores = self.v(torch.tanh(enc_feat + self.W_s(h)[:, None]
                                   + self.w_c(self.coverage[..., None]))).squeeze(-1)
        attn = F.softmax(scores, dim=-1)
        cov_loss = torch.minimum(attn, self.coverage).sum(-1)
        self.coverage = self.coverage + attn
        ctx = torch.bmm(attn[:, None], enc_out).squeeze(1)
        h = self.cell(torch.cat([y_emb, ctx], -1), h)
        return self.out(torch.cat([h, ctx], -1)), h, cov_loss


class Summarizer(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, dim)
        self.encoder = nn.GRU(dim, dim, batch_first=True)
        self.decoder = CoverageAttnDecoder(dim)

    def forward(self, src, tgt_in):
        self.decoder.coverage = None
        enc_out, h = self.encoder(self.embed(src))
        h = h[0]
        enc_feat = self.decoder.W_h(enc_out)
        logits, cov = [], []
        for t in range(tgt_in.size(1)):
            lg, h, cl = self.decoder.step(self.embed(tgt_in[:, t]), h, enc_out, enc_feat)
            logits.append(lg)
            cov.append(cl)
        return torch.stack(logits, 1), torch.stack(cov, 1)


def make_batch(gen, bsz=16, src_len=10, tgt_len=5):
    src = torch.randint(2, VOCAB, (bsz, src_len), generator=gen)
    tgt = src[:, ::2].clone()
    tgt_in = torch.cat([torch.full((bsz, 1), BOS), tgt[:, :-1]], 1)
    return src, tgt_in, tgt


def main():
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(0)
    model = Summarizer()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    cov_weight = 1.0
    for step in range(10):
        src, tgt_in, tgt = make_batch(gen)
        logits, cov_loss = model(src, tgt_in)
        nll = F.cross_entropy(logits.reshape(-1, VOCAB), tgt.reshape(-1))
        loss = nll + cov_weight * cov_loss.mean()
        opt.zero_grad()
        loss.backward()
        opt.step()
        print(f"step {step} nll {nll.item():.4f} coverage loss {cov_loss.mean().item():.4f}")


if __name__ == "__main__":
    main()
