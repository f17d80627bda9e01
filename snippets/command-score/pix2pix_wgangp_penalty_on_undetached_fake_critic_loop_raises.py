# https://github.com/junyanz/pytorch-CycleGAN-and-pix2pix/issues/439
# A faithful reduction of pytorch-CycleGAN-and-pix2pix's Pix2PixModel
# (forward, backward_D, backward_G, optimize_parameters),
# networks.GANLoss('wgangp') and networks.cal_gradient_penalty, with the
# user's WGAN-GP backward_D and D updated several times per G update.
import torch
import torch.nn as nn

torch.manual_seed(0)


class GANLoss(nn.Module):
    def __init__(self, gan_mode):
        super().__init__()
        self.gan_mode = gan_mode

    def __call__(self, prediction, target_is_real):
        if self.gan_mode == "wgangp":
            if target_is_real:
                loss = -prediction.mean()
            else:
                loss = prediction.mean()
        return loss


def cal_gradient_penalty(
    netD,
    real_data,
    fake_data,
    device,
    type="mixed",
    constant=1.0,
    lambda_gp=10.0,
):
    if lambda_gp > 0.0:
        if type == "mixed":
            alpha = torch.rand(real_data.shape[0], 1, device=device)
            alpha = (
                alpha.expand(
                    real_data.shape[0],
                    real_data.nelement() // real_data.shape[0],
                )
                .contiguous()
                .view(*real_data.shape)
            )
            interpolatesv = alpha * real_data + (
                (1 - alpha) * fake_data
            )
        interpolatesv.requires_grad_(True)
        disc_interpolates = netD(interpolatesv)
        gradients = torch.autograd.grad(
            outputs=disc_interpolates,
            inputs=interpolatesv,
            grad_outputs=torch.ones(disc_interpolates.size()).to(
                device
            ),
            create_graph=True,
            retain_graph=True,
            only_inputs=True,
        )
        gradients = gradients[0].view(
            real_data.size(0), -1
        )  # flat the data
        gradient_penalty = (
            ((gradients + 1e-16).norm(2, dim=1) - constant) ** 2
        ).mean() * lambda_gp  # added eps
        return gradient_penalty, gradients
    else:
        return 0.0, None


class Pix2PixModel:
    def __init__(self, n_critic=3):
        self.device = torch.device("cpu")
        self.netG = nn.Sequential(
            nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 4)
        )
        self.netD = nn.Sequential(
            nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1)
        )
        self.criterionGAN = GANLoss("wgangp")
        self.criterionL1 = nn.L1Loss()
        self.lambda_L1 = 100.0
        self.L_GP = 10.0
        self.n_critic = n_critic
        self.optimizer_G = torch.optim.Adam(
            self.netG.parameters(), lr=2e-4, betas=(0.5, 0.999)
        )
        self.optimizer_D = torch.optim.Adam(
            self.netD.parameters(), lr=2e-4, betas=(0.5, 0.999)
        )

    def set_input(self, real_A, real_B):
        self.real_A, self.real_B = real_A, real_B

    def set_requires_grad(self, net, requires_grad):
        for param in net.parameters():
            param.requires_grad = requires_grad

    def forward(self):
        self.fake_B = self.netG(self.real_A)  # G(A)

    def backward_D(self):
        """Calculate GAN loss for the discriminator"""
        # Fake; stop backprop to the generator by detaching fake_B
        # we use conditional GANs; we need to feed both input and output
        # to the discriminator
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        pred_fake = self.netD(fake_AB.detach())
        self.loss_D_fake = self.criterionGAN(pred_fake, False)
        # Real
        real_AB = torch.cat((self.real_A, self.real_B), 1)
        pred_real = self.netD(real_AB)
        self.loss_D_real = self.criterionGAN(pred_real, True)
        # combine loss and calculate gradients
        # gradient penalty
        self.gradient_penalty, self.gradients = cal_gradient_penalty(
            self.netD,
            real_AB,
            fake_AB,
            self.device,
            lambda_gp=self.L_GP,
        )
        self.loss_D = (
            self.loss_D_fake + self.loss_D_real + self.gradient_penalty
        )
        self.loss_D.backward()

    def backward_G(self):
        fake_AB = torch.cat((self.real_A, self.fake_B), 1)
        pred_fake = self.netD(fake_AB)
        self.loss_G_GAN = self.criterionGAN(pred_fake, True)
        self.loss_G_L1 = (
            self.criterionL1(self.fake_B, self.real_B) * self.lambda_L1
        )
        self.loss_G = self.loss_G_GAN + self.loss_G_L1
        self.loss_G.backward()

    def optimize_parameters(self):
        self.forward()  # compute fake images: G(A)
        # update D (several times before updating G)
        self.set_requires_grad(self.netD, True)
        for i in range(self.n_critic):
            self.optimizer_D.zero_grad()
            self.backward_D()
            self.optimizer_D.step()
            print(
                f"  D step {i}: loss_D {self.loss_D.item():.3f}, "
                f"gradient_penalty {self.gradient_penalty.item():.3f}"
            )
        # update G
        self.set_requires_grad(self.netD, False)
        self.optimizer_G.zero_grad()
        self.backward_G()
        self.optimizer_G.step()


model = Pix2PixModel()
real_A = torch.randn(8, 4)  # one aligned pair batch, reused
real_B = real_A.flip(1) + 0.1 * torch.randn(8, 4)
for it in range(3):
    model.set_input(real_A, real_B)
    print(f"iter {it}:")
    model.optimize_parameters()
    print(f"  loss_G_L1 {model.loss_G_L1.item():.3f}")
