"""BicycleGAN's update_G_and_E without retain_graph=True: the latent
regression loss, backpropagated alone after the encoder and generator's
loss, runs back through the generator's fake_B_random, whose graph
loss_G.backward() freed just before.

Source: https://github.com/junyanz/BicycleGAN/issues/81. A reader asks
why backward_EG calls self.loss_G.backward(retain_graph=True); with
it set to False they saw no error. junyanz answers that, with
lambda_z > 0, it might break in backward_G_alone without it: the
latent regression loss |E(G(A, z_random)) - z_random| is
backpropagated on its own, to update G alone (the encoder's
requires_grad is switched off around it), after loss_G, and both run
through the generator's graph for fake_B_random (loss_G through the
second discriminator). The raising program is the repository's model
with retain_graph=True taken out of backward_EG, at the default
lambda_z of 0.5.
Kept from models/bicycle_gan_model.py (master): forward (the batch of
two split into an encoded and a random half, the encoder's
reparameterized z, z_random, fake_B_encoded and fake_B_random, mu2 =
E(fake_B_random)), backward_D with the fake detached, backward_G_GAN,
backward_EG (GAN, GAN2, KL and L1 losses), update_D, backward_G_alone,
update_G_and_E and optimize_parameters; the least-squares GAN loss;
the defaults (batch size 2, nz 8, lambda_L1 10, lambda_GAN 1,
lambda_GAN2 1, lambda_z 0.5, lambda_kl 0.01, Adam at 2e-4 with beta1
0.5, two discriminators). Replaced: the U-Net generator, which adds z
at every layer, by two convolutions on the input with z tiled and
concatenated to it, the ResNet encoder by a convolution, a pooling and
two linear heads, the PatchGAN discriminators by two convolutions, the
image pairs by random 3x16x16 tensors, the logging by one printed
line.
"""

import torch
import torch.nn as nn

torch.manual_seed(0)


class Opt:
    batch_size, nz = 2, 8
    lambda_L1, lambda_GAN, lambda_GAN2 = 10.0, 1.0, 1.0
    lambda_z, lambda_kl = 0.5, 0.01
    use_same_D, conditional_D = False, False
    lr, beta1 = 0.0002, 0.5


class G(nn.Module):
    def __init__(self, nz=8):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3 + nz, 8, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(8, 3, 3, padding=1),
            nn.Tanh(),
        )

    def forward(self, x, z):
        z_img = z.view(z.size(0), z.size(1), 1, 1).expand(
            z.size(0), z.size(1), x.size(2), x.size(3)
        )
        return self.net(torch.cat([x, z_img], 1))


class E(nn.Module):
    def __init__(self, nz=8):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(3, 8, 4, 2, 1),
            nn.LeakyReLU(0.2),
            nn.AdaptiveAvgPool2d(1),
        )
        self.fc, self.fcVar = nn.Linear(8, nz), nn.Linear(8, nz)

    def forward(self, x):
        h = self.conv(x).flatten(1)
        return self.fc(h), self.fcVar(h)


def define_D():
    return nn.Sequential(
        nn.Conv2d(3, 8, 4, 2, 1),
        nn.LeakyReLU(0.2),
        nn.Conv2d(8, 1, 4, 1, 1),
    )


class GANLoss(nn.Module):
    def forward(self, prediction, target_is_real):
        target = torch.full_like(prediction, float(target_is_real))
        loss = nn.functional.mse_loss(prediction, target)
        return loss, [loss]


class BiCycleGANModel:
    def __init__(self, opt):
        self.opt = opt
        self.netG, self.netE = G(opt.nz), E(opt.nz)
        self.netD, self.netD2 = define_D(), define_D()
        self.criterionGAN = GANLoss()
        self.criterionL1 = nn.L1Loss()
        self.criterionZ = nn.L1Loss()

        def adam(net):
            return torch.optim.Adam(
                net.parameters(), lr=opt.lr, betas=(opt.beta1, 0.999)
            )

        self.optimizer_G, self.optimizer_E = (
            adam(self.netG),
            adam(self.netE),
        )
        self.optimizer_D = adam(self.netD)
        self.optimizer_D2 = adam(self.netD2)

    def set_requires_grad(self, nets, requires_grad=False):
        for net in nets:
            for param in net.parameters():
                param.requires_grad = requires_grad

    def set_input(self, real_A, real_B):
        self.real_A, self.real_B = real_A, real_B

    def get_z_random(self, batch_size, nz):
        return torch.randn(batch_size, nz).detach()

    def encode(self, input_image):
        mu, logvar = self.netE.forward(input_image)
        std = logvar.mul(0.5).exp_()
        eps = self.get_z_random(std.size(0), std.size(1))
        z = eps.mul(std).add_(mu)
        return z, mu, logvar

    def forward(self):
        half_size = self.opt.batch_size // 2
        self.real_A_encoded = self.real_A[0:half_size]
        self.real_B_encoded = self.real_B[0:half_size]
        self.real_A_random = self.real_A[half_size:]
        self.real_B_random = self.real_B[half_size:]
        self.z_encoded, self.mu, self.logvar = self.encode(
            self.real_B_encoded
        )
        self.z_random = self.get_z_random(
            self.real_A_encoded.size(0), self.opt.nz
        )
        self.fake_B_encoded = self.netG(
            self.real_A_encoded, self.z_encoded
        )
        self.fake_B_random = self.netG(
            self.real_A_encoded, self.z_random
        )
        self.fake_data_encoded = self.fake_B_encoded
        self.fake_data_random = self.fake_B_random
        self.real_data_encoded = self.real_B_encoded
        self.real_data_random = self.real_B_random
        if self.opt.lambda_z > 0.0:
            self.mu2, logvar2 = self.netE(self.fake_B_random)

    def backward_D(self, netD, real, fake):
        pred_fake = netD(fake.detach())
        pred_real = netD(real)
        loss_D_fake, _ = self.criterionGAN(pred_fake, False)
        loss_D_real, _ = self.criterionGAN(pred_real, True)
        loss_D = loss_D_fake + loss_D_real
        loss_D.backward()
        return loss_D, [loss_D_fake, loss_D_real]

    def backward_G_GAN(self, fake, netD=None, ll=0.0):
        if ll > 0.0:
            pred_fake = netD(fake)
            loss_G_GAN, _ = self.criterionGAN(pred_fake, True)
        else:
            loss_G_GAN = 0
        return loss_G_GAN * ll

    def backward_EG(self):
        opt = self.opt
        self.loss_G_GAN = self.backward_G_GAN(
            self.fake_data_encoded, self.netD, opt.lambda_GAN
        )
        self.loss_G_GAN2 = self.backward_G_GAN(
            self.fake_data_random, self.netD2, opt.lambda_GAN2
        )
        self.loss_kl = torch.sum(
            1 + self.logvar - self.mu.pow(2) - self.logvar.exp()
        ) * (-0.5 * opt.lambda_kl)
        self.loss_G_L1 = (
            self.criterionL1(self.fake_B_encoded, self.real_B_encoded)
            * opt.lambda_L1
        )
        self.loss_G = (
            self.loss_G_GAN
            + self.loss_G_GAN2
            + self.loss_G_L1
            + self.loss_kl
        )
        self.loss_G.backward()  # retain_graph=True taken out

    def update_D(self):
        self.set_requires_grad([self.netD, self.netD2], True)
        self.optimizer_D.zero_grad()
        self.loss_D, self.losses_D = self.backward_D(
            self.netD, self.real_data_encoded, self.fake_data_encoded
        )
        self.optimizer_D.step()
        self.optimizer_D2.zero_grad()
        self.loss_D2, self.losses_D2 = self.backward_D(
            self.netD2, self.real_data_random, self.fake_data_random
        )
        self.optimizer_D2.step()

    def backward_G_alone(self):
        if self.opt.lambda_z > 0.0:
            self.loss_z_L1 = (
                self.criterionZ(self.mu2, self.z_random)
                * self.opt.lambda_z
            )
            print(
                f"iteration {self.iteration}: loss_G "
                f"{self.loss_G.item():.4f}, loss_z_L1 "
                f"{self.loss_z_L1.item():.4f}"
            )
            self.loss_z_L1.backward()  # raises
        else:
            self.loss_z_L1 = 0.0

    def update_G_and_E(self):
        self.set_requires_grad([self.netD, self.netD2], False)
        self.optimizer_E.zero_grad()
        self.optimizer_G.zero_grad()
        self.backward_EG()
        if self.opt.lambda_z > 0.0:
            self.set_requires_grad([self.netE], False)
            self.backward_G_alone()
            self.set_requires_grad([self.netE], True)
        self.optimizer_E.step()
        self.optimizer_G.step()

    def optimize_parameters(self):
        self.forward()
        self.update_G_and_E()
        self.update_D()


model = BiCycleGANModel(Opt())
for iteration in range(1, 4):
    model.iteration = iteration
    real_A = torch.rand(2, 3, 16, 16) * 2 - 1
    real_B = torch.rand(2, 3, 16, 16) * 2 - 1
    model.set_input(real_A, real_B)
    model.optimize_parameters()
