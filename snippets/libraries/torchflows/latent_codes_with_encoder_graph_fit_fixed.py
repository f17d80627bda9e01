"""Source: https://github.com/davidnabergoj/torchflows/issues/8

Library: torchflows 1.2.1 (the thread calls it by its earlier name,
normalizing-flows), run unmodified. The reporter's code is a
screenshot; the program is the setup the reporter describes: the
latent space of an autoencoder passed to `flow.fit`. What the user
wanted: a probabilistic autoencoder: train an autoencoder, then fit
a normalizing flow to its latent codes, to sample new data from.
The fix: compute the latent codes under torch.no_grad().
"""

import warnings

import torch
from torch import nn
from torchflows.bijections.finite.autoregressive.architectures import (
    RealNVP,
)
from torchflows.flows import Flow

warnings.filterwarnings("ignore", ".*Converting a tensor with requires")
warnings.filterwarnings("ignore", ".*non-tuple sequence")
torch.manual_seed(0)
x = torch.randn(64, 10)
encoder = nn.Sequential(nn.Linear(10, 16), nn.Tanh(), nn.Linear(16, 3))
decoder = nn.Sequential(nn.Linear(3, 16), nn.Tanh(), nn.Linear(16, 10))
optimizer = torch.optim.Adam(
    [*encoder.parameters(), *decoder.parameters()], lr=0.01
)
for epoch in range(30):
    optimizer.zero_grad()
    loss = nn.functional.mse_loss(decoder(encoder(x)), x)
    loss.backward()
    optimizer.step()
print(f"autoencoder reconstruction loss {loss.item():.3f}")

with torch.no_grad():
    latent = encoder(x)  # the latent space, fed to the flow
flow = Flow(RealNVP(3))
with torch.no_grad():
    before = flow.log_prob(latent).mean().item()
grads = [p.grad.clone() for p in encoder.parameters()]
flow.fit(latent, n_epochs=2, batch_size=16)
with torch.no_grad():
    after = flow.log_prob(latent).mean().item()
print(f"mean log-likelihood of the codes: {before:.2f} -> {after:.2f}")
same = all(
    torch.equal(g, p.grad) for g, p in zip(grads, encoder.parameters())
)
print(f"the fit left the encoder's gradients as they were: {same}")
