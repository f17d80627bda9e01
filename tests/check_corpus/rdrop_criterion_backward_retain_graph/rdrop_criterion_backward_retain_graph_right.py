# source: https://github.com/dropreg/R-Drop/commit/4ff517462a408b9d299cf2aa47386e8d8ad43440
# Reduced from the R-Drop fairseq summarization example. The author intended:
# the R-Drop criterion runs the model twice (two dropout masks) on a doubled
# batch, adds a symmetric KL term between the two predictions, and the
# training step applies ONE backward of that loss per update. The criterion's
# forward_reg() already calls optimizer.backward(loss); the task's train_step
# still calls optimizer.backward(loss) afterwards as in stock fairseq.
import torch
import torch.nn as nn
import torch.nn.functional as F

PAD = 0
VOCAB = 40


class TinySummarizer(nn.Module):
    def __init__(self, vocab=VOCAB, dim=32, dropout=0.3):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=PAD)
        self.encoder = nn.GRU(dim, dim, batch_first=True)
        self.decoder = nn.GRU(dim, dim, batch_first=True)
        self.dropout = nn.Dropout(dropout)
        self.out = nn.Linear(dim, vocab)

    def forward(self, src_tokens, prev_output_tokens):
        _, h = self.encoder(self.dropout(self.embed(src_tokens)))
        dec, _ = self.decoder(self.dropout(self.embed(prev_output_tokens)), h)
        return self.out(self.dropout(dec))

    def get_normalized_probs(self, logits, log_probs):
        return F.log_softmax(logits, -1) if log_probs else F.softmax(logits, -1)


class FairseqLikeOptimizer:
    """Thin wrapper like fairseq's FairseqOptimizer: owns backward() and step()."""

    def __init__(self, params, lr):
        self.optimizer = torch.optim.SGD(params, lr=lr, momentum=0.9, nesterov=True)

    def backward(self, loss, **kwargs):
        loss.backward(**kwargs)

    def zero_grad(self):
        self.optimizer.zero_grad()

    def step(self):
        self.optimizer.step()


def label_smoothed_nll_loss(lprobs, target, eps, ignore_index):
    nll = -lprobs.gather(-1, target)
    smooth = -lprobs.sum(-1, keepdim=True)
    pad = target.eq(ignore_index)
    nll = nll.masked_fill(pad, 0.0).sum()
    smooth = smooth.masked_fill(pad, 0.0).sum()
    eps_i = eps / lprobs.size(-1)
    return (1.0 - eps) * nll + eps_i * smooth, nll


class RegLabelSmoothedCrossEntropy:
    def __init__(self, eps=0.1, padding_idx=PAD):
        self.eps = eps
        self.padding_idx = padding_idx

    def compute_kl_loss(self, model, logits, pad_mask):
        lp = model.get_normalized_probs(logits, log_probs=True)
        pr = model.get_normalized_probs(logits, log_probs=False)
        p, q = torch.split(lp, lp.size(0) // 2, dim=0)
        p_tec, q_tec = torch.split(pr, pr.size(0) // 2, dim=0)
        p_loss = F.kl_div(p, q_tec, reduction="none").masked_fill(pad_mask, 0.0).sum()
        q_loss = F.kl_div(q, p_tec, reduction="none").masked_fill(pad_mask, 0.0).sum()
        return (p_loss + q_loss) / 2

    def forward_reg(self, model, sample, optimizer, reg_alpha, ignore_grad):
        src = torch.cat([sample["src_tokens"], sample["src_tokens"].clone()], 0)
        prev = torch.cat([sample["prev_output_tokens"], sample["prev_output_tokens"].clone()], 0)
        logits = model(src, prev)
        lprobs = model.get_normalized_probs(logits, log_probs=True).view(-1, VOCAB)
        target = sample["target"]
        pad_mask = target.unsqueeze(-1).eq(self.padding_idx)
        target = torch.cat([target, target.clone()], 0)
        loss, nll_loss = label_smoothed_nll_loss(lprobs, target.view(-1, 1), self.eps, self.padding_idx)
        loss = loss + reg_alpha * self.compute_kl_loss(model, logits, pad_mask)
        if ignore_grad:
            loss = loss * 0
        optimizer.backward(loss)
        return loss, sample["ntokens"], {"loss": loss.item(), "nll_loss": nll_loss.item()}


class RDropSummarizationTask:
    def __init__(self, reg_alpha):
        self.criterion_reg_alpha = reg_alpha

    def train_step(self, sample, model, criterion, optimizer, ignore_grad=False):
        model.train()
        loss, sample_size, logging_output = criterion.forward_reg(
            model, sample, optimizer, self.criterion_reg_alpha, ignore_grad
        )
        # forward_reg() already ran the backward for this update
        return loss, sample_size, logging_output


def make_batch(gen, bsz=8, src_len=12, tgt_len=6):
    src = torch.randint(3, VOCAB, (bsz, src_len), generator=gen)
    tgt = src[:, :tgt_len].flip(1).clone()
    tgt[bsz // 2:, -2:] = PAD  # some padded summaries
    prev = torch.cat([torch.full((bsz, 1), 2), tgt[:, :-1]], 1)
    return {"src_tokens": src, "prev_output_tokens": prev, "target": tgt,
            "ntokens": int(tgt.ne(PAD).sum())}


def main():
    torch.manual_seed(0)
    gen = torch.Generator().manual_seed(1)
    model = TinySummarizer()
    criterion = RegLabelSmoothedCrossEntropy()
    task = RDropSummarizationTask(reg_alpha=0.7)
    optimizer = FairseqLikeOptimizer(model.parameters(), lr=0.002)
    for update in range(6):
        sample = make_batch(gen)
        optimizer.zero_grad()
        loss, sample_size, log = task.train_step(sample, model, criterion, optimizer)
        optimizer.step()
        print(f"update {update} loss/tok {log['loss'] / sample_size:.4f} nll/tok {log['nll_loss'] / sample_size:.4f}")


if __name__ == "__main__":
    main()
