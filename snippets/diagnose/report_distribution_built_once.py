import torch
from freed_graph_report import report_freed
from torch import nn
from torch.distributions import Bernoulli

torch.manual_seed(0)
torch.autograd.set_detect_anomaly(True)  # to name the lines
policy = nn.Linear(3, 4)
opt = torch.optim.SGD(policy.parameters(), lr=0.1)
obs = torch.randn(3)

dist = Bernoulli(logits=policy(obs))  # built once, before the loop
for step in range(2):
    action = dist.sample()
    loss = -dist.log_prob(action).sum() - 0.01 * dist.entropy().sum()
    print(f"step {step}:")
    report_freed(loss)
    opt.zero_grad()
    loss.backward()
    opt.step()
