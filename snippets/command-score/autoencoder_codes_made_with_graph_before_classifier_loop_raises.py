"""A classifier trained on an autoencoder's codes, the codes made once
before the training loop with the encoder's graph.

Source: https://devgem.io/posts/understanding-pytorch-s-runtimeerror-backward-through-the-graph-a-second-time
The user, having trained an autoencoder, encoded the training,
validation and test sets with it once, then trained a second model
on the codes in a loop over batches, and got this error although
loss.backward() runs once per batch. The post's answer: the codes
are outputs of the autoencoder's graph; made with it, every batch's
backward goes back into the encoder, and the first one frees it; the
encoding belongs under torch.no_grad() ("This line is crucial").
Kept: the encoding as the post shows it (autoencoder.eval(), the
autoencoder returning its codes and its reconstruction loss, one
call per split), here without torch.no_grad(), and the training
loop as posted (max_iters, the start_ix/end_ix slices, the model
returning out, loss and accuracy, zero_grad(set_to_none=True), the
print of the requires_grad flags, backward, step, start_ix = end_ix
+ 1); changed: the data became 20 random rows of 8 features in 3
classes, the autoencoder a Linear(8, 3) encoder and Linear(3, 8)
decoder, the model a Linear(3, 3) head with cross-entropy, Adam on
the model's parameters, batches of 6, two iterations, seeded; the
post's X_train_tensor is the codes (X_train_encoded).
"""

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
        print(
            iter,
            start_ix,
            X_train_tensor.requires_grad,
            y_train_tensor.requires_grad,
            loss.requires_grad,
        )
        loss.backward()
        optimizer.step()
        start_ix = end_ix + 1
