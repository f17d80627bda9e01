"""https://github.com/Zhaoyi-Yan/Shift-Net_pytorch/issues/34

The maintainer's fix (ce62bd3, "fix bug in re_avg_gan"): backward_D
calls self.loss_D.backward(retain_graph=True) for re_avg_gan, so that
backward_G can go back through self.pred_fake.
"""

from types import SimpleNamespace

import torch
import torch.nn as nn

torch.manual_seed(0)


class GANLoss(nn.Module):
    def __init__(
        self,
        gan_type="re_avg_gan",
        target_real_label=1.0,
        target_fake_label=0.0,
    ):
        super().__init__()
        self.register_buffer(
            "real_label", torch.tensor(target_real_label)
        )
        self.register_buffer(
            "fake_label", torch.tensor(target_fake_label)
        )
        self.gan_type = gan_type
        self.loss = nn.BCEWithLogitsLoss()

    def get_target_tensor(self, prediction, target_is_real):
        if target_is_real:
            return self.real_label.expand_as(prediction)
        return self.fake_label.expand_as(prediction)

    def __call__(self, prediction, target_is_real):
        target_tensor = self.get_target_tensor(
            prediction, target_is_real
        )
        return self.loss(prediction, target_tensor)


class ShiftNetModel:
    def __init__(self, opt):
        self.opt = opt
        self.netG = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(8, 1, 3, padding=1),
            nn.Tanh(),
        )
        self.netD = nn.Sequential(
            nn.Conv2d(1, 8, 4, stride=2, padding=1),
            nn.LeakyReLU(0.2),
            nn.Conv2d(8, 1, 4, stride=2, padding=1),
        )
        self.criterionGAN = GANLoss(gan_type=opt.gan_type)
        self.criterionL1 = nn.L1Loss()
        self.optimizer_G = torch.optim.Adam(
            self.netG.parameters(), lr=opt.lr, betas=(0.5, 0.999)
        )
        self.optimizer_D = torch.optim.Adam(
            self.netD.parameters(), lr=opt.lr, betas=(0.5, 0.999)
        )

    def set_input(self, real_A, real_B):
        self.real_A = real_A
        self.real_B = real_B

    def forward(self):
        self.fake_B = self.netG(self.real_A)

    def backward_D(self):
        fake_AB = self.fake_B
        real_AB = self.real_B  # GroundTruth
        self.pred_fake = self.netD(fake_AB.detach())
        self.pred_real = self.netD(real_AB)
        if self.opt.gan_type == "re_avg_gan":
            real_vs_fake = self.pred_real - torch.mean(self.pred_fake)
            fake_vs_real = self.pred_fake - torch.mean(self.pred_real)
            self.loss_D = (
                self.criterionGAN(real_vs_fake, True)
                + self.criterionGAN(fake_vs_real, False)
            ) / 2
        # for `re_avg_gan`, need to retain graph of D.
        if self.opt.gan_type == "re_avg_gan":
            self.loss_D.backward(retain_graph=True)
        else:
            self.loss_D.backward()

    def backward_G(self):
        # First, G(A) should fake the discriminator
        fake_AB = self.fake_B
        pred_fake = self.netD(fake_AB)
        if self.opt.gan_type == "re_s_gan":
            pred_real = self.netD(self.real_B)
            self.loss_G_GAN = self.criterionGAN(
                pred_fake - pred_real, True
            )
        elif self.opt.gan_type == "re_avg_gan":
            self.pred_real = self.netD(self.real_B)
            self.loss_G_GAN = (
                self.criterionGAN(
                    self.pred_real - torch.mean(self.pred_fake), False
                )
                + self.criterionGAN(
                    self.pred_fake - torch.mean(self.pred_real), True
                )
            ) / 2.0
        self.loss_G_L1 = (
            self.criterionL1(self.fake_B, self.real_B)
            * self.opt.lambda_A
        )
        self.loss_G = (
            self.loss_G_L1 + self.loss_G_GAN * self.opt.gan_weight
        )
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()
        print(f"D step done: loss_D {self.loss_D.item():.3f}")

        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()


opt = SimpleNamespace(
    gan_type="re_avg_gan", lr=2e-4, lambda_A=100.0, gan_weight=0.2
)
model = ShiftNetModel(opt)
for i in range(3):
    real_B = torch.rand(4, 1, 8, 8) * 2 - 1
    real_A = real_B * (torch.rand(4, 1, 8, 8) > 0.25)  # masked input
    model.set_input(real_A, real_B)
    model.optimize_parameters()
    print(f"iter {i}: loss_G {model.loss_G.item():.2f}")
