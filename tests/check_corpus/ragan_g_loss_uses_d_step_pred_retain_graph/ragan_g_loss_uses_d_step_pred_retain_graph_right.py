# https://github.com/Zhaoyi-Yan/Shift-Net_pytorch/issues/34
import torch
import torch.nn as nn

torch.manual_seed(0)


class GANLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.loss = nn.BCEWithLogitsLoss()

    def __call__(self, input, target_is_real):
        target = torch.ones_like(input) if target_is_real else torch.zeros_like(input)
        return self.loss(input, target)


class ShiftNetModel:
    def __init__(self, gan_weight=0.2, lambda_A=1.0):
        self.netG = nn.Sequential(nn.Linear(16, 32), nn.ReLU(), nn.Linear(32, 16))
        self.netD = nn.Sequential(nn.Linear(16, 32), nn.LeakyReLU(0.2), nn.Linear(32, 1))
        self.criterionGAN, self.criterionL1 = GANLoss(), nn.L1Loss()
        self.optimizer_G = torch.optim.Adam(self.netG.parameters(), lr=2e-3, betas=(0.5, 0.999), fused=True)
        self.optimizer_D = torch.optim.Adam(self.netD.parameters(), lr=2e-3, betas=(0.5, 0.999), fused=True)
        self.gan_weight, self.lambda_A = gan_weight, lambda_A

    def set_requires_grad(self, net, requires_grad):
        for p in net.parameters():
            p.requires_grad = requires_grad

    def backward_D(self):
        self.pred_fake = self.netD(self.fake_B.detach())
        self.pred_real = self.netD(self.real_B)
        self.loss_D = (self.criterionGAN(self.pred_real - torch.mean(self.pred_fake), True)
                       + self.criterionGAN(self.pred_fake - torch.mean(self.pred_real), False)) / 2.
        self.loss_D.backward()

    def backward_G(self):
        pred_fake = self.netD(self.fake_B)
        self.pred_real = self.netD(self.real_B)
        self.loss_G_GAN = (self.criterionGAN(self.pred_real - torch.mean(pred_fake), False)
                           + self.criterionGAN(pred_fake - torch.mean(self.pred_real), True)) / 2.
        self.loss_G_L1 = self.criterionL1(self.fake_B, self.real_B) * self.lambda_A
        self.loss_G = self.loss_G_L1 + self.loss_G_GAN * self.gan_weight
        g_adv = torch.autograd.grad(self.loss_G_GAN * self.gan_weight, list(self.netG.parameters()),
                                    retain_graph=True, allow_unused=True)
        self.adv_grad = sum(g.norm() ** 2 for g in g_adv if g is not None) ** 0.5
        self.loss_G.backward()

    def optimize_parameters(self, real_A, real_B):
        self.real_A, self.real_B = real_A, real_B
        self.fake_B = self.netG(self.real_A)
        self.set_requires_grad(self.netD, True)
        self.optimizer_D.zero_grad()
        self.backward_D()
        self.optimizer_D.step()
        self.set_requires_grad(self.netD, False)
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()


model = ShiftNetModel()
for step in range(10):
    real_B = torch.randn(32, 16)
    real_A = real_B * (torch.rand(32, 16) > 0.3)
    model.optimize_parameters(real_A, real_B)
    print(f"step {step}: loss_D {model.loss_D.item():.4f}, loss_G_GAN {model.loss_G_GAN.item():.4f}, "
          f"|grad of adversarial term wrt G| {float(model.adv_grad):.6f}")
