import torch
from torch import nn


def gram_matrix(f):
    b, c, h, w = f.shape
    f = f.view(b * c, h * w)
    return f @ f.T / f.numel()


def style_transfer(freeze):
    torch.manual_seed(0)
    # Stands for a pretrained network with BatchNorm and dropout.
    features = nn.Sequential(
        nn.Conv2d(3, 4, 3),
        nn.BatchNorm2d(4),
        nn.ReLU(),
        nn.Dropout(0.2),
    )
    freeze(features)
    bn = features[1]
    mean_before = bn.running_mean.clone()
    style_img = torch.rand(1, 3, 16, 16)
    style_gram = gram_matrix(features(style_img))
    again = gram_matrix(features(style_img))
    moved = not torch.equal(mean_before, bn.running_mean)

    img = torch.rand(1, 3, 16, 16).requires_grad_()
    opt = torch.optim.Adam([img], lr=0.003)
    for step in range(3):
        opt.zero_grad()
        g = gram_matrix(features(img))
        loss = 1e6 * nn.functional.mse_loss(g, style_gram)
        loss.backward()
        opt.step()
    print(f"    same target twice: {torch.equal(style_gram, again)}")
    print(f"    making the target moved running_mean: {moved}")
    counted = bn.num_batches_tracked.item()
    print(f"    forward passes BatchNorm counted: {counted}")
    print(f"    image got a gradient: {img.grad is not None}")


print("requires_grad_(False) only:")
style_transfer(lambda net: net.requires_grad_(False))
print("eval() and requires_grad_(False):")
style_transfer(lambda net: net.eval().requires_grad_(False))
