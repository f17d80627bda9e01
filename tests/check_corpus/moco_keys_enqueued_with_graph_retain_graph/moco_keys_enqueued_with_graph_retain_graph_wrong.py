# source: written blind
# MoCo-style contrastive pretraining on vectors: a query encoder trained by
# InfoNCE, a momentum (EMA) key encoder that is never trained by gradients,
# and a FIFO queue of past keys used as negatives. The author intended keys
# (and everything stored in the queue) to be fixed targets; only the query
# encoder is optimised.
import copy

import torch
import torch.nn as nn
import torch.nn.functional as F


class Encoder(nn.Module):
    def __init__(self, in_dim=16, dim=8):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(in_dim, 64), nn.ReLU(), nn.Linear(64, dim))

    def forward(self, x):
        return F.normalize(self.net(x), dim=1)


class MoCo(nn.Module):
    def __init__(self, queue_size=256, dim=8, m=0.99, T=0.2):
        super().__init__()
        self.encoder_q = Encoder(dim=dim)
        self.encoder_k = copy.deepcopy(self.encoder_q)
        self.m, self.T, self.K = m, T, queue_size
        self.queue = F.normalize(torch.randn(queue_size, dim), dim=1)

    def momentum_update_key_encoder(self):
        for p_q, p_k in zip(self.encoder_q.parameters(), self.encoder_k.parameters()):
            p_k.data = p_k.data * self.m + p_q.data * (1.0 - self.m)

    def dequeue_and_enqueue(self, keys):
        self.queue = torch.cat([keys, self.queue], dim=0)[: self.K]

    def forward(self, im_q, im_k):
        q = self.encoder_q(im_q)
        self.momentum_update_key_encoder()
        k = self.encoder_k(im_k)
        l_pos = (q * k).sum(1, keepdim=True)
        l_neg = q @ self.queue.t()
        logits = torch.cat([l_pos, l_neg], dim=1) / self.T
        labels = torch.zeros(logits.size(0), dtype=torch.long)
        self.dequeue_and_enqueue(k)
        return logits, labels


def two_views(x):
    return x + 0.1 * torch.randn_like(x), x * (1 + 0.1 * torch.randn_like(x))


def main():
    torch.manual_seed(0)
    data = torch.randn(10, 16).repeat_interleave(64, 0) + 0.3 * torch.randn(640, 16)
    model = MoCo()
    opt = torch.optim.SGD(model.encoder_q.parameters(), lr=0.05, momentum=0.9)
    for step in range(12):
        idx = torch.randint(0, data.size(0), (32,))
        im_q, im_k = two_views(data[idx])
        logits, labels = model(im_q, im_k)
        loss = F.cross_entropy(logits, labels)
        opt.zero_grad()
        loss.backward(retain_graph=True)
        opt.step()
        acc = (logits.argmax(1) == 0).float().mean()
        print(f"step {step} infonce {loss.item():.4f} pos-top1 {acc:.3f}")


if __name__ == "__main__":
    main()
