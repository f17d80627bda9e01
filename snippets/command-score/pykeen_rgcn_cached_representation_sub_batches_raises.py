"""pykeen's R-GCN trained in sub-batches: the entity representations
enriched once and cached, one backward per sub-batch.

Source: https://github.com/pykeen/pykeen/issues/1159
The user wanted to train pykeen's RGCN with the sLCWA training loop,
the basic negative sampler and a batch of 20480 triples with 10
negatives each, on a GPU, where pykeen's automatic memory
optimization splits a batch that does not fit into sub-batches.
Kept (pykeen 1.9): RGCNRepresentation's cache (the entity
representations enriched by message passing over all training
triples, kept in self.enriched_embeddings and cleared only by
post_parameter_update), the training loop's sub-batches (a forward
and loss.backward() per sub-batch, the loss scaled by its share of
the batch, then one optimizer step and post_parameter_update),
sLCWA's positive and negative score_hrt calls, DistMult, a margin
ranking loss; changed: a random graph of 8 entities and 2 relations,
one R-GCN layer with a weight per relation and a self-loop, messages
in one direction, no edge dropout, one negative per positive made by
corrupting the tail, batches of 8 in sub-batches of 4 (the size the
memory optimization picks is fixed here).
"""

import torch
from torch import nn

torch.manual_seed(0)
N_ENT, N_REL, DIM, BATCH, SUB_BATCH = 8, 2, 6, 8, 4
triples = torch.stack(
    [
        torch.randint(0, N_ENT, (16,)),
        torch.randint(0, N_REL, (16,)),
        torch.randint(0, N_ENT, (16,)),
    ],
    dim=1,
)


class RGCNRepresentation(nn.Module):
    def __init__(self, mapped_triples, cache=True):
        super().__init__()
        self.entity_embeddings = nn.Embedding(N_ENT, DIM)
        self.weights = nn.Parameter(0.3 * torch.randn(N_REL, DIM, DIM))
        self.self_loop = nn.Linear(DIM, DIM)
        h, r, t = mapped_triples.t()
        self.register_buffer("sources", h)
        self.register_buffer("targets", t)
        self.register_buffer("edge_types", r)
        self.enriched_embeddings = None
        self.cache = cache

    def post_parameter_update(self):
        self.enriched_embeddings = None

    def _real_forward_all(self):
        if self.enriched_embeddings is not None:
            return self.enriched_embeddings
        x = self.entity_embeddings.weight
        w = self.weights[self.edge_types]
        msg = torch.einsum("ei,eij->ej", x[self.sources], w)
        agg = torch.zeros_like(x).index_add(0, self.targets, msg)
        x = torch.relu(self.self_loop(x) + agg)
        if self.cache:
            self.enriched_embeddings = x
        return x

    def forward(self, indices):
        return self._real_forward_all()[indices]


class RGCN(nn.Module):
    def __init__(self, mapped_triples):
        super().__init__()
        self.entity_representations = RGCNRepresentation(mapped_triples)
        self.relation_representations = nn.Embedding(N_REL, DIM)

    def score_hrt(self, hrt):
        h = self.entity_representations(hrt[:, 0])
        r = self.relation_representations(hrt[:, 1])
        t = self.entity_representations(hrt[:, 2])
        return (h * r * t).sum(dim=-1)  # DistMult

    def post_parameter_update(self):
        self.entity_representations.post_parameter_update()


model = RGCN(triples)
optimizer = torch.optim.Adam(model.parameters(), lr=0.01)

for b, batch in enumerate(triples.split(BATCH)):
    optimizer.zero_grad()
    for start in range(0, len(batch), SUB_BATCH):
        positive = batch[start : start + SUB_BATCH]
        negative = positive.clone()
        negative[:, 2] = torch.randint(0, N_ENT, (len(negative),))
        pos = model.score_hrt(positive)
        neg = model.score_hrt(negative)
        loss = torch.relu(1.0 - pos + neg).mean()
        loss = loss * len(positive) / len(batch)
        print(
            f"batch {b}, sub-batch {start // SUB_BATCH}: "
            f"loss {loss.item():.4f}"
        )
        loss.backward()
    optimizer.step()
    model.post_parameter_update()
