import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 2))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
# An online linear probe: what does the hidden layer encode?
probe = nn.Linear(16, 3)
probe_opt = torch.optim.SGD(probe.parameters(), lr=0.1)

activations = {}


# --8<-- [start:fix]
def save_output(module, args, output):
    # The same values, without the graph of this forward pass.
    activations["hidden"] = output.detach()


model[1].register_forward_hook(save_output)
# --8<-- [end:fix]

for step in range(3):
    x, y = torch.randn(8, 4), torch.randn(8, 2)
    label = torch.randint(0, 3, (8,))
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step}: loss {loss.item():.4f}")

    # Later: train the probe on what the hook stored.
    logits = probe(activations["hidden"])
    probe_loss = nn.functional.cross_entropy(logits, label)
    probe_loss.backward()
    probe_opt.step()
    probe_opt.zero_grad()
    print(f"        probe loss {probe_loss.item():.4f}")

grads = [p.grad for p in model.parameters()]
print(f"model .grad all None after the probe: {grads == [None] * 4}")
