# GAN inversion by optimization: find the latent code z whose image
# G(z) matches a target, with a pixel term, a perceptual term on a
# fixed feature network's activations and a Gaussian prior on z. Only
# z is optimized; the pretrained G and the feature network stay fixed.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
LAT, IMG = 8, 48
G = nn.Sequential(nn.Linear(LAT, 64), nn.ReLU(), nn.Linear(64, IMG), nn.Tanh())
vgg = nn.Sequential(nn.Linear(IMG, 32), nn.ReLU(), nn.Linear(32, 16), nn.ReLU())
with torch.no_grad():
    x = G(torch.randn(1, LAT)) + 0.05 * torch.randn(1, IMG)
    feat_x = vgg(x)
z = torch.zeros(1, LAT, requires_grad=True)
optimizer = torch.optim.Adam([z], lr=0.05)
lambda_percep, lambda_prior = 30.0, 1e-3


def reaches(losses, params):
    # do these losses' graphs lead to any of params? (walks grad_fn)
    ids, seen, todo = {id(p) for p in params}, set(), [lo.grad_fn for lo in losses]
    while todo:
        fn = todo.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if id(getattr(fn, "variable", None)) in ids:
            return True
        todo.extend(f for f, _ in fn.next_functions)
    return False


for step in range(30):
    optimizer.zero_grad()
    img = G(z)
    loss_pix = F.mse_loss(img, x) + lambda_prior * z.pow(2).sum()
    # through G and the feature network, both left requires_grad=True:
    # their grads pile up unused, only z is stepped
    loss_percep = lambda_percep * F.mse_loss(vgg(img), feat_x)
    reach = reaches([loss_percep], [z])
    loss = loss_pix + loss_percep
    loss.backward()
    optimizer.step()
    if step % 10 == 0 or step == 29:
        print(f"step {step}: loss_percep reaches z: {reach}; grads "
              f"written into G: {G[0].weight.grad is not None}, into vgg: "
              f"{vgg[0].weight.grad is not None} (neither is optimized)")
