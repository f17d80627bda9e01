# Dense retrieval with one encoder for queries and catalogue items.
# The item bank was encoded once per epoch and reused by each batch;
# the 2nd batch raised the backward-twice error, and an answer said
# to encode the bank under torch.no_grad(). The encoder still trains
# through the queries, so the bank drifts from it.
import torch
from torch import nn
from torch.nn.functional import normalize

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(12, 32), nn.ReLU(), nn.Linear(32, 16))
query_head = nn.Linear(16, 16)
optimizer = torch.optim.SGD(
    [*encoder.parameters(), *query_head.parameters()],
    lr=0.1, momentum=0.9, foreach=True)
items = torch.randn(40, 12)
targets = torch.randint(40, (3, 4, 16))
queries = items[targets] + 0.5 * torch.randn(3, 4, 16, 12)
for epoch in range(3):
    with torch.no_grad():
        bank = normalize(encoder(items))
    for batch in range(4):
        q = normalize(query_head(encoder(queries[epoch, batch])))
        scores = q @ bank.T / 0.1
        loss = nn.functional.cross_entropy(scores, targets[epoch, batch])
        with torch.no_grad():
            fresh = normalize(encoder(items))
            rel = ((bank - fresh).norm() / fresh.norm()).item()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"epoch {epoch} batch {batch}: loss {loss.item():.3f}, "
              f"bank used vs encoder now (relative) {rel:.3f}")
