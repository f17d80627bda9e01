"""Non-stationary texture synthesis: the generator's style loss
backpropagated, then its adversarial and L1 loss, `retain_graph`
taken out of the first backward.

Source: https://github.com/jessemelpolio/non-stationary_texture_syn/issues/15
The user wanted to train HalfGanStyleModel, which learns to expand a
texture crop to twice its size: the generator's step backpropagates
a Gram-matrix style loss on VGG features with
`retain_graph=True`, then the adversarial loss plus the L1 loss. The
user asked whether this differs from one backward of the three
losses' sum; the author had not tried it and guessed that the two
calls save memory. The raising program is backward_G with
`retain_graph=True` taken out of the style loss's backward, what the
two calls look like to a reader who takes them to be independent.
Kept: HalfGanStyleModel's forward, backward_D (the fake batch through
the image pool and detached, LSGAN losses), backward_G (the style
loss summed over VGG layers with its per-layer weights, Gram
matrices, its own backward, then the adversarial and L1 losses) and
optimize_parameters (D step, then G step); changed: the residual
generator became two convolutions and an upsampling, the PatchGAN a
three-layer one, the pretrained VGG19 a frozen random three-layer
convolution stack read at every layer, 3x8x8 crops expanded to
3x16x16, an image pool of size 0 (it returns its input), no Variable,
.item() for .data[0], a print of the style loss.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class GramMatrix(nn.Module):
    def forward(self, x):
        b, c, h, w = x.size()
        f = x.view(b, c, h * w)
        return torch.bmm(f, f.transpose(1, 2)) / (h * w)


class GramMSELoss(nn.Module):
    def forward(self, x, target):
        return F.mse_loss(GramMatrix()(x), target)


class VGG(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1 = nn.Conv2d(3, 8, 3, padding=1)
        self.c2 = nn.Conv2d(8, 8, 3, padding=1)
        self.c3 = nn.Conv2d(8, 16, 3, padding=1)

    def forward(self, x, out_keys):
        out = {}
        out["r11"] = F.relu(self.c1(x))
        out["r21"] = F.relu(self.c2(F.avg_pool2d(out["r11"], 2)))
        out["r31"] = F.relu(self.c3(F.avg_pool2d(out["r21"], 2)))
        return [out[key] for key in out_keys]


class GANLoss(nn.Module):
    def forward(self, pred, target_is_real):
        target = torch.full_like(pred, 1.0 if target_is_real else 0.0)
        return F.mse_loss(pred, target)


class ImagePool:
    def __init__(self, pool_size):
        self.pool_size = pool_size

    def query(self, images):
        return images


class HalfGanStyleModel:
    def __init__(self):
        self.style_layers = ["r11", "r21", "r31"]
        self.loss_layers = self.style_layers
        self.loss_fns = [GramMSELoss()] * len(self.style_layers)
        self.vgg = VGG()
        for param in self.vgg.parameters():
            param.requires_grad = False
        self.weights = [1e3 / n**2 for n in [8, 8, 16]]
        self.netG = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1),
            nn.ReLU(),
            nn.Upsample(scale_factor=2),
            nn.Conv2d(16, 3, 3, padding=1),
            nn.Tanh(),
        )
        self.netD = nn.Sequential(
            nn.Conv2d(3, 8, 4, stride=2, padding=1),
            nn.LeakyReLU(0.2),
            nn.Conv2d(8, 16, 4, stride=2, padding=1),
            nn.LeakyReLU(0.2),
            nn.Conv2d(16, 1, 3, padding=1),
        )
        self.fake_AB_pool = ImagePool(0)
        self.criterionGAN = GANLoss()
        self.criterionL1 = nn.L1Loss()
        self.lambda_A = 100.0
        self.optimizer_G = torch.optim.Adam(
            self.netG.parameters(), lr=2e-4, betas=(0.5, 0.999)
        )
        self.optimizer_D = torch.optim.Adam(
            self.netD.parameters(), lr=2e-4, betas=(0.5, 0.999)
        )

    def set_input(self, input_A, input_B):
        self.input_A = input_A
        self.input_B = input_B

    def forward(self):
        self.real_A = self.input_A
        self.fake_B = self.netG(self.real_A)
        self.real_B = self.input_B

    def backward_D(self):
        fake_AB = self.fake_AB_pool.query(self.fake_B.clone())
        self.pred_fake = self.netD(fake_AB.detach())
        self.loss_D_fake = self.criterionGAN(self.pred_fake, False)
        real_AB = self.real_B.clone()
        self.pred_real = self.netD(real_AB)
        self.loss_D_real = self.criterionGAN(self.pred_real, True)
        self.loss_D = (self.loss_D_fake + self.loss_D_real) * 0.5
        self.loss_D.backward()

    def backward_G(self):
        style_targets = [
            GramMatrix()(A).detach()
            for A in self.vgg(self.real_B, self.style_layers)
        ]
        targets = style_targets
        out = self.vgg(self.fake_B, self.loss_layers)
        layer_losses = [
            self.weights[a] * self.loss_fns[a](A, targets[a])
            for a, A in enumerate(out)
        ]
        loss = sum(layer_losses)
        self.style_loss = loss
        print(f"style loss {loss.item():.4f}")
        loss.backward()
        self.style_loss_value = self.style_loss.item()

        fake_AB = self.fake_B.clone()
        pred_fake = self.netD(fake_AB)
        self.loss_G_GAN = self.criterionGAN(pred_fake, True)
        self.loss_G_L1 = (
            self.criterionL1(self.fake_B, self.real_B) * self.lambda_A
        )
        self.loss_G = self.loss_G_GAN + self.loss_G_L1
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()


model = HalfGanStyleModel()
for i in range(2):
    source = torch.rand(2, 3, 16, 16) * 2 - 1
    model.set_input(source[:, :, 4:12, 4:12], source)
    model.optimize_parameters()
    print(
        f"iter {i}: D {model.loss_D.item():.4f}, "
        f"G {model.loss_G.item():.4f}"
    )
