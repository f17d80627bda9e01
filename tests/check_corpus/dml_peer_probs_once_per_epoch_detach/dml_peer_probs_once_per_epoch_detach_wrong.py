# Deep Mutual Learning (Zhang et al. 2018): two peers learn together,
# each on cross-entropy plus KL to the other's predictions, both
# stepped after one backward of the summed losses.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
BATCHES, N, DIM, NCLS = 4, 16, 12, 5


def make_model():
    return nn.Sequential(nn.Linear(DIM, 32), nn.ReLU(), nn.Linear(32, NCLS))


models = [make_model() for _ in range(2)]
optimizers = [torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)
              for m in models]
all_x = torch.randn(BATCHES * N, DIM)
all_y = (all_x[:, :NCLS] + 0.5 * all_x[:, NCLS:2 * NCLS]).argmax(1)

for epoch in range(3):
    # each peer's predictions over the training set, once per epoch.
    # The 2nd batch asked to backward through the graph a second time;
    # the answer: detach them
    peer_probs = [F.softmax(m(all_x), dim=1).detach() for m in models]
    fresh = 0
    for b in range(BATCHES):
        idx = slice(b * N, (b + 1) * N)
        x, y = all_x[idx], all_y[idx]
        outputs = [m(x) for m in models]
        targets = [peer_probs[j][idx] for j in range(2)]
        losses = []
        for i in range(2):
            j = 1 - i
            kl = F.kl_div(F.log_softmax(outputs[i], dim=1), targets[j],
                          reduction="batchmean")
            losses.append(F.cross_entropy(outputs[i], y) + kl)
        # measured: are the KL targets the peers' predictions now?
        with torch.no_grad():
            fresh += all(torch.allclose(targets[j], F.softmax(models[j](x), 1),
                                        atol=1e-6) for j in range(2))
        for opt in optimizers:
            opt.zero_grad()
        sum(losses).backward()
        for opt in optimizers:
            opt.step()
    print(f"epoch {epoch}: batches whose KL targets are the peers' "
          f"current predictions: {fresh} of {BATCHES}")
