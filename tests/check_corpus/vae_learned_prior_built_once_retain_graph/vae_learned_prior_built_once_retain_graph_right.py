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


for step in range(8):
    x = data[step]
    # built each step: its scale is exp() of this step's log-scale
    prior = Normal(prior_mu, prior_logstd.exp())
    torch.manual_seed(step)
    loss = loss_fn(x, prior)
    # the same batch and noise through a prior built now
    torch.manual_seed(step)
    fresh = Normal(prior_mu, prior_logstd.exp())
    want = torch.autograd.grad(loss_fn(x, fresh), prior_logstd)[0]
    # the decoder's gradient norm for the log; the graph is kept for
    # this step's backward() just below
    g = torch.autograd.grad(loss, dec[-1].weight, retain_graph=True)
    opt.zero_grad()
    loss.backward()
    print(
        f"step {step}: prior scale used vs exp(prior_logstd) "
        f"{rel(prior.scale, fresh.scale):.3f}, prior_logstd grad "
        f"vs a fresh prior's {rel(prior_logstd.grad, want):.3f}, "
        f"decoder grad norm {g[0].norm():.3f}"
    )
    opt.step()
