"""A classifier trained on an autoencoder's codes, the codes made once
under torch.no_grad() before the training loop.

Source: https://devgem.io/posts/understanding-pytorch-s-runtimeerror-backward-through-the-graph-a-second-time
The user, having trained an autoencoder, encoded the training,
validation and test sets with it once, then trained a second model
on the codes in a loop over batches. The post's fix: encode under
torch.no_grad() ("This line is crucial"), so that the codes are
plain data and each batch's backward stops at them.
Kept: the raising program's autoencoder, classifier, data, encoding
and training loop, the encoding now under torch.no_grad() as the
post has it; changed: the print also checks the classifier's
gradients against those of a copy of its head on codes made again
from the autoencoder under no_grad, and that the autoencoder gets no
gradient.
"""

import copy

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class Autoencoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(8, 3)
        self.decoder = nn.Linear(3, 8)

    def forward(self, x):
        encoded = torch.tanh(self.encoder(x))
        loss = F.mse_loss(self.decoder(encoded), x)
        return encoded, loss


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = nn.Linear(3, 3)

    def forward(self, x, y):
        out = self.head(x)
        loss = F.cross_entropy(out, y)
        accuracy = (out.argmax(1) == y).float().mean()
        return out, loss, accuracy


X_train = torch.randn(20, 8)
y_train_tensor = torch.randint(0, 3, (20,))
X_val, X_test = torch.randn(6, 8), torch.randn(6, 8)

autoencoder = Autoencoder()  # trained before, as in the post
autoencoder.eval()
with torch.no_grad():  # This line is crucial
    X_train_encoded, loss = autoencoder(X_train)
    X_val_encoded, loss = autoencoder(X_val)
    X_test_encoded, loss = autoencoder(X_test)
X_train_tensor = X_train_encoded

model = Classifier()
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
max_iters, batch_size = 2, 6

for iter in range(max_iters):  # noqa: A001 (as posted)
    start_ix = 0
    loss = None
    while start_ix < len(X_train_tensor):
        loss = None
        end_ix = min(start_ix + batch_size, len(X_train_tensor))
        out, loss, accuracy = model(
            X_train_tensor[start_ix:end_ix],
            y_train_tensor[start_ix:end_ix],
        )
        optimizer.zero_grad(set_to_none=True)
        loss.backward()
        # reference: a copy of the model on codes made again, no graph
        ref_model = copy.deepcopy(model)
        ref_model.zero_grad(set_to_none=True)
        with torch.no_grad():
            codes = autoencoder(X_train[start_ix:end_ix])[0]
        ref_model(codes, y_train_tensor[start_ix:end_ix])[1].backward()
        same = all(
            torch.allclose(p.grad, q.grad)
            for p, q in zip(model.parameters(), ref_model.parameters())
        )
        untouched = all(
            p.grad is None for p in autoencoder.parameters()
        )
        print(
            iter,
            start_ix,
            X_train_tensor.requires_grad,
            y_train_tensor.requires_grad,
            loss.requires_grad,
            f"grads = fresh codes': {same},",
            f"autoencoder untouched: {untouched}",
        )
        optimizer.step()
        start_ix = end_ix + 1
