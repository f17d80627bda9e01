"""The three models of the Costs page, and a meter for saved tensors.

The other scripts in snippets/costs/ import this file: keep it next
to them. Run alone, it describes the models.
"""

import weakref

import torch
from torch import nn


class Tagger(nn.Module):
    """An LSTM that labels every step of a sequence."""

    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(32, 128, batch_first=True)
        self.head = nn.Linear(128, 10)

    def forward(self, x):
        out, _ = self.lstm(x)
        return self.head(out)


def mlp(batch):
    model = nn.Sequential(
        nn.Linear(784, 512),
        nn.ReLU(),
        nn.Linear(512, 512),
        nn.ReLU(),
        nn.Linear(512, 10),
    )
    return model, torch.randn(batch, 784), torch.randint(10, (batch,))


def cnn(batch):
    model = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Linear(32 * 8 * 8, 10),
    )
    x = torch.randn(batch, 3, 32, 32)
    return model, x, torch.randint(10, (batch,))


def lstm(batch):
    x = torch.randn(batch, 50, 32)  # 50 steps of 32 features
    return Tagger(), x, torch.randint(10, (batch, 50))


MODELS = {"mlp": mlp, "cnn": cnn, "lstm": lstm}


def loss_of(model, x, y):
    logits = model(x)
    # The tagger has one label per step: fold steps into the batch.
    return nn.functional.cross_entropy(
        logits.flatten(0, -2), y.flatten()
    )


def tbptt(model, x, y, retain, detach, steps=10):
    """Train a Tagger on one long sequence, chunk by chunk.

    The LSTM state is carried from chunk to chunk; detach cuts its
    graph. Yields after each chunk's backward; gradients add up
    in .grad for one optimizer step per sequence.
    """
    state = None
    for start in range(0, x.shape[1], steps):
        if detach and state is not None:
            state = tuple(s.detach() for s in state)
        out, state = model.lstm(x[:, start : start + steps], state)
        loss = nn.functional.cross_entropy(
            model.head(out).flatten(0, 1),
            y[:, start : start + steps].flatten(),
        )
        loss.backward(retain_graph=retain)
        yield


class _Box:
    __slots__ = ("tensor", "__weakref__")

    def __init__(self, tensor):
        self.tensor = tensor


class SavedTensors:
    """Inside `with`: counts the bytes that the graph saves.

    held() is what is still alive, each storage once. Parameters are
    left out: the model keeps them alive anyway.
    """

    def __init__(self, model):
        self._params = {
            p.untyped_storage().data_ptr() for p in model.parameters()
        }
        self._boxes = []
        self._hooks = torch.autograd.graph.saved_tensors_hooks(
            self._pack, lambda box: box.tensor
        )

    def __enter__(self):
        self._hooks.__enter__()
        return self

    def __exit__(self, *exc):
        self._hooks.__exit__(*exc)

    def _pack(self, tensor):
        # detach(): the same storage, without the grad_fn that would
        # make a cycle (node -> box -> tensor -> node) never freed.
        box = _Box(tensor.detach())
        self._boxes.append(weakref.ref(box))
        return box

    def held(self):
        boxes = [ref() for ref in self._boxes]
        self._boxes = [weakref.ref(b) for b in boxes if b is not None]
        storages = {}
        for box in boxes:
            if box is None:
                continue
            storage = box.tensor.untyped_storage()
            if storage.data_ptr() not in self._params:
                storages[storage.data_ptr()] = storage.nbytes()
        return sum(storages.values())


if __name__ == "__main__":
    torch.manual_seed(0)
    for name, make in MODELS.items():
        model, x, y = make(batch=32)
        n = sum(p.numel() for p in model.parameters())
        print(f"{name}: {n:,} parameters, input {tuple(x.shape)}")
