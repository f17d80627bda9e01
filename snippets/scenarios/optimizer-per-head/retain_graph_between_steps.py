import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 16))
depth_head = nn.Linear(16, 1)  # task A: regression
class_head = nn.Linear(16, 3)  # task B: classification
opt_encoder = torch.optim.SGD(encoder.parameters(), lr=0.05)
opt_depth = torch.optim.SGD(depth_head.parameters(), lr=0.1)
opt_class = torch.optim.SGD(class_head.parameters(), lr=0.01)
x = torch.randn(32, 8)
depth, label = torch.randn(32, 1), torch.randint(0, 3, (32,))


def step(between):
    """One step, `between` stepped between the two backward calls."""
    for opt in (opt_encoder, opt_depth, opt_class):
        opt.zero_grad()
    features = encoder(x)
    loss_depth = F.mse_loss(depth_head(features), depth)
    loss_class = F.cross_entropy(class_head(features), label)
    # The class loss's gradient for the encoder, at the current weights.
    want = torch.autograd.grad(
        loss_class, encoder[2].weight, retain_graph=True
    )[0]
    loss_depth.backward(retain_graph=True)  # the wrong fix
    done = encoder[2].weight.grad.clone()
    for opt in between:
        opt.step()
    loss_class.backward()
    got = encoder[2].weight.grad - done
    return torch.allclose(got, want, atol=1e-6)


print("the depth head's optimizer stepped between the backward calls:")
print(f"  class loss's encoder gradient right: {step([opt_depth])}")
print("the encoder's optimizer stepped with the depth task too:")
print(
    "  class loss's encoder gradient right:",
    step([opt_depth, opt_encoder]),
)
