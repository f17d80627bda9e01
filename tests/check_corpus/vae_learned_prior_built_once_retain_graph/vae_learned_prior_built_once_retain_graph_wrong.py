# A VAE whose Gaussian prior is learned (mean and log-scale) along
# with the encoder and decoder.
import torch
from torch import nn
from torch.distributions import Normal, kl_divergence

torch.manual_seed(0)
enc = nn.Sequential(nn.Linear(6, 32), nn.Tanh(), nn.Linear(32, 4))
dec = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 6))
prior_mu = nn.Parameter(torch.zeros(2))
prior_logstd = nn.Parameter(torch.zeros(2))
params = [*enc.parameters(), *dec.parameters(), prior_mu, prior_logstd]
opt = torch.optim.Adam(params, lr=0.05)
data = torch.randn(8, 64, 6) * 0.3 + torch.linspace(-1, 1, 6)


def loss_fn(x, prior):
    mu, logstd = enc(x).chunk(2, dim=-1)
    q = Normal(mu, logstd.exp())
    recon = (dec(q.rsample()) - x).pow(2).sum(-1).mean()
    return recon + kl_divergence(q, prior).sum(-1).mean()


def rel(a, b):
    return ((a - b).norm() / b.norm()).item()


prior = Normal(prior_mu, prior_logstd.exp())
for step in range(8):
    x = data[step]
    torch.manual_seed(step)
    loss = loss_fn(x, prior)
    # the same batch and noise through a prior built now
    torch.manual_seed(step)
    fresh = Normal(prior_mu, prior_logstd.exp())
    want = torch.autograd.grad(loss_fn(x, fresh), prior_logstd)[0]
    opt.zero_grad()
    # the 2nd step's error named retain_graph=True
    loss.backward(retain_graph=True)
    print(
        f"step {step}: prior scale used vs exp(prior_logstd) "
        f"{rel(prior.scale, fresh.scale):.3f}, prior_logstd grad "
        f"vs a fresh prior's {rel(prior_logstd.grad, want):.3f}"
    )
    opt.step()
