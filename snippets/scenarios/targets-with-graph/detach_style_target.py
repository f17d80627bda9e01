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


# --8<-- [start:fix]
style_img = torch.rand(1, 3, 16, 16)
# A target is a constant: detach it, as the tutorial does.
style_gram = gram_matrix(features(style_img)).detach()
# --8<-- [end:fix]

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

# The network's weights still get (unused) gradients every step.
w = features[0].weight
print(f"target requires grad: {style_gram.requires_grad}")
print(f"network weight .grad is None: {w.grad is None}")
