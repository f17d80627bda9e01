"""R-Drop: the task backpropagates a loss its criterion already did.

Source: https://github.com/dropreg/R-Drop/issues/8
The user wanted to fine-tune a summarizer with R-Drop: cross-entropy
on two dropout passes of each batch plus their symmetric KL, with
gradient accumulation (update_freq) and one Adam step per update.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
PAD = 0


def label_smoothed_nll_loss(lprobs, target, epsilon, ignore_index=None):
    if target.dim() == lprobs.dim() - 1:
        target = target.unsqueeze(-1)
    nll_loss = -lprobs.gather(dim=-1, index=target)
    smooth_loss = -lprobs.sum(dim=-1, keepdim=True)
    if ignore_index is not None:
        pad_mask = target.eq(ignore_index)
        nll_loss.masked_fill_(pad_mask, 0.0)
        smooth_loss.masked_fill_(pad_mask, 0.0)
    nll_loss = nll_loss.sum()
    smooth_loss = smooth_loss.sum()
    eps_i = epsilon / lprobs.size(-1)
    loss = (1.0 - epsilon) * nll_loss + eps_i * smooth_loss
    return loss, nll_loss


class TinySeq2Seq(nn.Module):
    """Stands in for BART: embeddings, dropout, encoder, decoder."""

    def __init__(self, vocab=20, dim=16):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim, padding_idx=PAD)
        self.encoder = nn.GRU(dim, dim, batch_first=True)
        self.decoder = nn.GRU(dim, dim, batch_first=True)
        self.dropout = nn.Dropout(0.1)
        self.out = nn.Linear(dim, vocab)

    def forward(self, src_tokens, src_lengths, prev_output_tokens):
        _, h = self.encoder(self.dropout(self.embed(src_tokens)))
        x = self.dropout(self.embed(prev_output_tokens))
        y, _ = self.decoder(x, h)
        return (self.out(self.dropout(y)),)

    def get_normalized_probs(self, net_output, log_probs):
        if log_probs:
            return F.log_softmax(net_output[0], dim=-1)
        return F.softmax(net_output[0], dim=-1)

    def get_targets(self, sample, net_output):
        return sample["target"]


class RegLabelSmoothedCrossEntropyCriterion:
    def __init__(self, label_smoothing):
        self.eps = label_smoothing
        self.padding_idx = PAD

    def compute_kl_loss(self, model, net_output, pad_mask=None):
        net_prob = model.get_normalized_probs(
            net_output, log_probs=True
        )
        net_prob_tec = model.get_normalized_probs(
            net_output, log_probs=False
        )
        p, q = torch.split(net_prob, net_prob.size(0) // 2, dim=0)
        p_tec, q_tec = torch.split(
            net_prob_tec, net_prob_tec.size(0) // 2, dim=0
        )
        p_loss = F.kl_div(p, q_tec, reduction="none")
        q_loss = F.kl_div(q, p_tec, reduction="none")
        if pad_mask is not None:
            p_loss.masked_fill_(pad_mask, 0.0)
            q_loss.masked_fill_(pad_mask, 0.0)
        return (p_loss.sum() + q_loss.sum()) / 2

    def forward_reg(
        self, model, sample, optimizer, reg_alpha, ignore_grad
    ):
        sample_input = sample["net_input"]
        sample_concat_input = {
            k: torch.cat([v, v.clone()], 0)
            for k, v in sample_input.items()
        }
        net_output = model(**sample_concat_input)
        lprobs = model.get_normalized_probs(net_output, log_probs=True)
        lprobs = lprobs.view(-1, lprobs.size(-1))
        target = model.get_targets(sample, net_output)
        pad_mask = target.unsqueeze(-1).eq(self.padding_idx)
        target = torch.cat([target, target.clone()], dim=0)
        loss, nll_loss = label_smoothed_nll_loss(
            lprobs, target.view(-1, 1), self.eps, self.padding_idx
        )
        kl_loss = self.compute_kl_loss(model, net_output, pad_mask)
        loss += reg_alpha * kl_loss
        if ignore_grad:
            loss *= 0
        optimizer.backward(loss)
        logging_output = {
            "loss": loss.item(),
            "nll_loss": nll_loss.item(),
        }
        return loss, sample["ntokens"], logging_output


class FairseqAdam:
    """fairseq's optimizer wrapper: backward() is loss.backward()."""

    def __init__(self, params, lr):
        self.params = list(params)
        self.optimizer = torch.optim.Adam(self.params, lr=lr)

    def backward(self, loss):
        loss.backward()

    def step(self):
        torch.nn.utils.clip_grad_norm_(self.params, 0.1)  # --clip-norm
        self.optimizer.step()

    def zero_grad(self):
        self.optimizer.zero_grad()


class RDropTranslationTask:
    def __init__(self, reg_alpha):
        self.criterion_reg_alpha = reg_alpha

    def train_step(
        self,
        sample,
        model,
        criterion,
        optimizer,
        update_num,
        ignore_grad=False,
    ):
        model.train()
        loss, sample_size, logging_output = criterion.forward_reg(
            model,
            sample,
            optimizer,
            self.criterion_reg_alpha,
            ignore_grad,
        )
        if ignore_grad:
            loss *= 0
        optimizer.backward(loss)
        return loss, sample_size, logging_output


def make_sample(bsz=4, src_len=7, tgt_len=5):
    src = torch.randint(1, 20, (bsz, src_len))
    tgt = torch.randint(1, 20, (bsz, tgt_len))
    tgt[0, -2:] = PAD
    prev = torch.cat([torch.full((bsz, 1), 2), tgt[:, :-1]], 1)
    return {
        "net_input": {
            "src_tokens": src,
            "src_lengths": torch.full((bsz,), src_len),
            "prev_output_tokens": prev,
        },
        "target": tgt,
        "ntokens": int(tgt.ne(PAD).sum()),
    }


model = TinySeq2Seq()
criterion = RegLabelSmoothedCrossEntropyCriterion(label_smoothing=0.1)
optimizer = FairseqAdam(model.parameters(), lr=3e-3)
task = RDropTranslationTask(reg_alpha=0.7)  # --reg-alpha 0.7
UPDATE_FREQ = 2  # --update-freq: sub-batches per optimizer step

batches = [make_sample() for _ in range(UPDATE_FREQ)]  # a tiny epoch

for update_num in range(3):
    optimizer.zero_grad()
    for i, sample in enumerate(batches):
        print(f"update {update_num} sub-batch {i}: train_step")
        loss, sample_size, log = task.train_step(
            sample, model, criterion, optimizer, update_num
        )
    optimizer.step()
    print(f"update {update_num}: loss {log['loss']:.3f}")
