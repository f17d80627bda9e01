# fastai's style-transfer notebook (fastai 0.7): SaveFeatures forward
# hooks on VGG block ends, style match then style transfer with LBFGS;
# VGG16 is a tiny conv net here, the images random 16x16 tensors.
from functools import partial

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim

torch.manual_seed(0)


def children(m):
    return list(m.children())


# stand-in for vgg16(True): conv blocks, each ending before a MaxPool2d
m_vgg = nn.Sequential(
    nn.Conv2d(3, 4, 3, padding=1),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Conv2d(4, 8, 3, padding=1),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Conv2d(8, 8, 3, padding=1),
    nn.ReLU(),
    nn.MaxPool2d(2),
    nn.Conv2d(8, 8, 3, padding=1),
    nn.ReLU(),
    nn.MaxPool2d(2),
).eval()
for p in m_vgg.parameters():
    p.requires_grad_(False)  # set_trainable(m_vgg, False)

img_tfm = torch.rand(3, 16, 16)  # val_tfms(img)
style_tfm = torch.rand(3, 16, 16)  # val_tfms(style_img)

max_iter = 8
show_iter = 4


def step(loss_fn):
    global n_iter
    optimizer.zero_grad()
    loss = loss_fn(opt_img_v)
    loss.backward()
    n_iter += 1
    if n_iter % show_iter == 0:
        # L-BFGS on an image amplifies the CPU's rounding: print the
        # loss's order of magnitude only.
        print(f"Iteration: {n_iter}, loss: {loss.item():.0e}")
    return loss


# ## forward hook
class SaveFeatures:
    features = None

    def __init__(self, m):
        self.hook = m.register_forward_hook(self.hook_fn)

    def hook_fn(self, module, input, output):
        self.features = output

    def close(self):
        self.hook.remove()


block_ends = [
    i - 1
    for i, o in enumerate(children(m_vgg))
    if isinstance(o, nn.MaxPool2d)
]


def get_opt():
    opt_img = torch.rand(3, 16, 16)
    opt_img_v = (opt_img / 2)[None].requires_grad_(True)
    return opt_img_v, optim.LBFGS([opt_img_v], max_iter=4)


# ## Style match
opt_img_v, optimizer = get_opt()
sfs = [SaveFeatures(children(m_vgg)[idx]) for idx in block_ends]
m_vgg(img_tfm[None])
targ_vs = [o.features.clone() for o in sfs]
m_vgg(style_tfm[None])
targ_styles = [o.features.clone() for o in sfs]


def gram(input):
    b, c, h, w = input.size()
    x = input.view(b * c, -1)
    return torch.mm(x, x.t()) / input.numel() * 1e6


def gram_mse_loss(input, target):
    return F.mse_loss(gram(input), gram(target))


def style_loss(x):
    m_vgg(opt_img_v)
    outs = [o.features for o in sfs]
    losses = [gram_mse_loss(o, s) for o, s in zip(outs, targ_styles)]
    return sum(losses)


n_iter = 0
while n_iter <= max_iter:
    optimizer.step(partial(step, style_loss))
for sf in sfs:
    sf.close()

# ## Style transfer
print("style transfer")
sfs = [SaveFeatures(children(m_vgg)[idx]) for idx in block_ends]
opt_img_v, optimizer = get_opt()


def comb_loss(x):
    m_vgg(opt_img_v)
    outs = [o.features for o in sfs]
    losses = [gram_mse_loss(o, s) for o, s in zip(outs, targ_styles)]
    cnt_loss = F.mse_loss(outs[3], targ_vs[3]) * 1000000
    style_loss = sum(losses)
    return cnt_loss + style_loss


n_iter = 0
while n_iter <= max_iter:
    optimizer.step(partial(step, comb_loss))
for sf in sfs:
    sf.close()
