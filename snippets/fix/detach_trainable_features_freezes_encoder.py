import torch
from torch import nn

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(3, 8), nn.ReLU())
head = nn.Linear(8, 1)
params = list(encoder.parameters()) + list(head.parameters())
opt = torch.optim.SGD(params, lr=0.1)
x, y = torch.randn(16, 3), torch.randn(16, 1)
encoder_before = [p.detach().clone() for p in encoder.parameters()]

# The encoder should train, but its output is computed once and
# detached to silence the error: its parameters were reachable
# only through that graph.
features = encoder(x).detach()
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.mse_loss(head(features), y)
    loss.backward()
    opt.step()
    print(
        f"step {step}: loss {loss.item():.4f}, "
        f"head has .grad: {head.weight.grad is not None}, "
        f"encoder .grad is None: "
        f"{all(p.grad is None for p in encoder.parameters())}"
    )

unchanged = all(
    torch.equal(p, p0)
    for p, p0 in zip(encoder.parameters(), encoder_before)
)
print(f"encoder weights unchanged after training: {unchanged}")
