# https://github.com/OpenNMT/OpenNMT-py/issues/2153
# A faithful reduction of OpenNMT-py's sharded loss (onmt/utils/loss.py
# at fc3409ce: LossComputeBase.__call__ with shard_size > 0,
# filter_shard_state, shards(), whose last step backpropagates the whole
# network with torch.autograd.backward(inputs, grads)) and of the
# reporter's change: a classification loss on an encoder head, computed
# and backpropagated inside __call__; the NMT model is reduced to a GRU
# encoder, a classification head, a GRU decoder and a generator.
import torch
import torch.nn as nn

torch.manual_seed(0)


def filter_shard_state(state, shard_size=None):
    for k, v in state.items():
        if shard_size is None:
            yield k, v

        if v is not None:
            v_split = []
            if isinstance(v, torch.Tensor):
                for v_chunk in torch.split(v, shard_size):
                    v_chunk = v_chunk.data.clone()
                    v_chunk.requires_grad = v.requires_grad
                    v_split.append(v_chunk)
            yield k, (v, v_split)


def shards(state, shard_size):
    non_none = dict(filter_shard_state(state, shard_size))
    keys, values = zip(
        *(
            (k, [v_chunk for v_chunk in v_split])
            for k, (_, v_split) in non_none.items()
        )
    )
    for shard_tensors in zip(*values):
        yield dict(zip(keys, shard_tensors))

    # Assumed backprop'd
    variables = []
    for k, (v, v_split) in non_none.items():
        if isinstance(v, torch.Tensor) and state[k].requires_grad:
            variables.extend(
                zip(
                    torch.split(state[k], shard_size),
                    [v_chunk.grad for v_chunk in v_split],
                )
            )
    inputs, grads = zip(*variables)
    torch.autograd.backward(inputs, grads)


class NMTModel(nn.Module):
    def __init__(self, vocab=10, hidden=8, n_classes=3):
        super().__init__()
        self.embeddings = nn.Embedding(vocab, hidden)
        self.encoder = nn.GRU(hidden, hidden)
        self.class_head = nn.Linear(
            hidden, n_classes
        )  # the reporter's head after the encoder
        self.decoder = nn.GRU(hidden, hidden)
        self.generator = nn.Sequential(
            nn.Linear(hidden, vocab), nn.LogSoftmax(dim=-1)
        )

    def forward(self, src, tgt):
        memory_bank, enc_state = self.encoder(self.embeddings(src))
        stargets_logits = self.class_head(memory_bank.mean(0))
        dec_out, _ = self.decoder(self.embeddings(tgt), enc_state)
        return dec_out, stargets_logits


class NMTLossCompute:
    def __init__(self, criterion, generator):
        self.criterion = criterion
        self.generator = generator
        self.class_criterion = nn.CrossEntropyLoss(reduction="sum")

    def _make_shard_state(self, batch, output):
        return {"output": output, "target": batch["tgt"][1:]}

    def _compute_loss(self, batch, output, target):
        scores = self.generator(output.view(-1, output.size(2)))
        return self.criterion(scores, target.view(-1))

    def _compute_class_loss(self, stargets_logits, stargets_refs):
        return self.class_criterion(stargets_logits, stargets_refs)

    def __call__(
        self,
        batch,
        output,
        stargets_logits,
        normalization=1.0,
        shard_size=0,
    ):
        shard_state = self._make_shard_state(batch, output)
        # the reporter's addition: the classification loss,
        # backpropagated here
        class_loss = self._compute_class_loss(
            stargets_logits, batch["stargets"]
        )
        class_loss.backward()
        total = class_loss.item()
        for shard in shards(shard_state, shard_size):
            loss = self._compute_loss(batch, **shard)
            loss.div(float(normalization)).backward()
            total += loss.item()
        return None, total


model = NMTModel()
optim = torch.optim.Adam(model.parameters(), lr=1e-2)
train_loss = NMTLossCompute(
    nn.NLLLoss(reduction="sum"), model.generator
)
batches = [
    dict(
        src=torch.randint(0, 10, (5, 4)),
        tgt=torch.randint(0, 10, (6, 4)),
        stargets=torch.randint(0, 3, (4,)),
    )
    for _ in range(3)
]

for epoch in range(2):
    for i, batch in enumerate(batches):
        optim.zero_grad()
        outputs, stargets_logits = model(
            batch["src"], batch["tgt"][:-1]
        )
        print(f"epoch {epoch} batch {i}: forward done")
        loss, stats = train_loss(
            batch,
            outputs,
            stargets_logits,
            normalization=4,
            shard_size=2,
        )
        optim.step()
        print(f"epoch {epoch} batch {i}: loss {stats:.3f}")
