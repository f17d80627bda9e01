# source: https://github.com/ruizheng20/robust_ticket/issues/2
# FreeLB adversarial training reduced to plain torch: K ascent steps on an embedding perturbation
# `delta`; each step's loss/K is backpropagated and the parameter gradients ACCUMULATE over the K
# steps (that is the algorithm); one optimizer step after the K steps. delta is a constant per step.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
V, D, T, C = 50, 16, 6, 2
emb = torch.nn.Embedding(V, D)
clf = torch.nn.Sequential(
    torch.nn.Flatten(), torch.nn.Linear(T * D, 32), torch.nn.Tanh(), torch.nn.Linear(32, C)
)
opt = torch.optim.SGD(list(emb.parameters()) + list(clf.parameters()), lr=0.1)
ids, y = torch.randint(0, V, (8, T)), torch.randint(0, C, (8,))
adv_K, adv_lr, adv_max_norm = 3, 0.1, 0.5

for epoch in range(2):
    opt.zero_grad()
    embeds_init = emb(ids)  # looked up once, before the ascent loop
    delta = torch.zeros_like(embeds_init).uniform_(-0.05, 0.05)
    for astep in range(adv_K):
        delta.requires_grad_()
        loss = F.cross_entropy(clf(embeds_init + delta), y) / adv_K
        loss.backward()  # accumulates into emb/clf grads and delta.grad
        if astep == adv_K - 1:
            break
        g = delta.grad.detach()
        delta = delta.detach() + adv_lr * g / (g.flatten(1).norm(dim=1).view(-1, 1, 1) + 1e-8)
        delta = delta * (adv_max_norm / delta.flatten(1).norm(dim=1).clamp(min=adv_max_norm)).view(
            -1, 1, 1
        )
    opt.step()
    print(epoch, loss.item() * adv_K)
