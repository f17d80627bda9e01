import torch
from torch import nn

torch.manual_seed(0)
# Stands for a pretrained VGG: loaded weights require grad.
features = nn.Sequential(
    nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Conv2d(4, 4, 3), nn.ReLU()
)


def gram_matrix(f):
    b, c, h, w = f.shape
    f = f.view(b * c, h * w)
    return f @ f.T / f.numel()


style_img = torch.rand(1, 3, 16, 16)
made_before = gram_matrix(features(style_img))
# Only the image is optimised: freeze the network, then make the
# target. It has no graph, and no weight gradients are computed.
# eval() keeps BatchNorm and dropout layers, if any, fixed too.
features.eval().requires_grad_(False)
style_gram = gram_matrix(features(style_img))

img = torch.rand(1, 3, 16, 16).mul(0.2).requires_grad_()
opt = torch.optim.Adam([img], lr=0.003)
style_weight = 1e6  # the tutorial's default
for step in range(3):
    opt.zero_grad()
    g = gram_matrix(features(img))
    loss = style_weight * nn.functional.mse_loss(g, style_gram)
    loss.backward()
    opt.step()
    print(f"step {step}: style loss {loss.item():.4f}")

w = features[0].weight
print(f"target requires grad: {style_gram.requires_grad}")
print(f"network weight .grad is None: {w.grad is None}")
print(f"a target made before freezing: {made_before.requires_grad}")
