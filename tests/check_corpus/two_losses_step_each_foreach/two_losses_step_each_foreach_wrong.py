import torch
from torch import nn

torch.manual_seed(0)

net = nn.Sequential(nn.Linear(8, 32), nn.ReLU(), nn.Linear(32, 16))
recon_head = nn.Linear(16, 8)
class_head = nn.Linear(16, 4)
model = nn.ModuleList([net, recon_head, class_head])
opt = torch.optim.SGD(
    model.parameters(), lr=0.05, momentum=0.9, foreach=True
)
x, y = torch.randn(32, 8), torch.randint(0, 4, (32,))

for step in range(3):
    z = net(x)
    recon = nn.functional.mse_loss(recon_head(z), x)
    ce = nn.functional.cross_entropy(class_head(z), y)
    opt.zero_grad()
    recon.backward(retain_graph=True)
    opt.step()
    opt.zero_grad()
    ce.backward()
    opt.step()
    print(f"step {step}: recon {recon.item():.3f}, ce {ce.item():.3f}")
