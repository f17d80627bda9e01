"""SinGAN's training at its coarsest scale with the pull request's
fix: netD(fake.detach()) in the generator's loop.

Source: https://github.com/tamarott/SinGAN/pull/117 ("Fix for PyTorch
1.6"), the one line it changes, with the repository's
errG.backward(retain_graph=True) kept. It runs, but the generator's
loss no longer reaches the generator: its reviewers answer that netG
is then not updated any more by errG, and only the reconstruction loss
trains it. The check prints whether errG's backward gave netG any
gradient.
"""

import torch
from torch import nn, optim

torch.manual_seed(0)

nc_im, nc_z, nfc, min_nfc = 3, 3, 32, 32
ker_size, num_layer, padd_size = 3, 5, 0
noise_amp, lambda_grad, alpha = 0.1, 0.1, 10
Dsteps, Gsteps, niter = 3, 3, 2


class ConvBlock(nn.Sequential):
    def __init__(self, in_channel, out_channel, ker_size, padd, stride):
        super().__init__()
        self.add_module(
            "conv",
            nn.Conv2d(
                in_channel,
                out_channel,
                kernel_size=ker_size,
                stride=stride,
                padding=padd,
            ),
        )
        self.add_module("norm", nn.BatchNorm2d(out_channel))
        self.add_module("LeakyRelu", nn.LeakyReLU(0.2, inplace=True))


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv2d") != -1:
        m.weight.data.normal_(0.0, 0.02)
    elif classname.find("Norm") != -1:
        m.weight.data.normal_(1.0, 0.02)
        m.bias.data.fill_(0)


def body():
    layers = nn.Sequential()
    for i in range(num_layer - 2):
        N = int(nfc / pow(2, (i + 1)))
        block = ConvBlock(
            max(2 * N, min_nfc), max(N, min_nfc), ker_size, padd_size, 1
        )
        layers.add_module(f"block{i + 1}", block)
    return layers, max(N, min_nfc)


class WDiscriminator(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = ConvBlock(nc_im, nfc, ker_size, padd_size, 1)
        self.body, N = body()
        self.tail = nn.Conv2d(
            N, 1, kernel_size=ker_size, stride=1, padding=padd_size
        )

    def forward(self, x):
        return self.tail(self.body(self.head(x)))


class GeneratorConcatSkip2CleanAdd(nn.Module):
    def __init__(self):
        super().__init__()
        self.head = ConvBlock(nc_im, nfc, ker_size, padd_size, 1)
        self.body, N = body()
        self.tail = nn.Sequential(
            nn.Conv2d(
                N,
                nc_im,
                kernel_size=ker_size,
                stride=1,
                padding=padd_size,
            ),
            nn.Tanh(),
        )

    def forward(self, x, y):
        x = self.tail(self.body(self.head(x)))
        ind = int((y.shape[2] - x.shape[2]) / 2)
        y = y[:, :, ind : (y.shape[2] - ind), ind : (y.shape[3] - ind)]
        return x + y


def calc_gradient_penalty(netD, real_data, fake_data, LAMBDA):
    a = torch.rand(1, 1).expand(real_data.size())
    interpolates = a * real_data + ((1 - a) * fake_data)
    interpolates = torch.autograd.Variable(
        interpolates, requires_grad=True
    )
    disc_interpolates = netD(interpolates)
    gradients = torch.autograd.grad(
        outputs=disc_interpolates,
        inputs=interpolates,
        grad_outputs=torch.ones(disc_interpolates.size()),
        create_graph=True,
        retain_graph=True,
        only_inputs=True,
    )[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean() * LAMBDA


def generate_noise(size):
    return torch.randn(1, size[0], size[1], size[2])


real = torch.rand(1, nc_im, 25, 25) * 2 - 1
netD, netG = WDiscriminator(), GeneratorConcatSkip2CleanAdd()
netD.apply(weights_init)
netG.apply(weights_init)

nzx, nzy = real.shape[2], real.shape[3]
pad_noise = int(((ker_size - 1) * num_layer) / 2)
pad_image = int(((ker_size - 1) * num_layer) / 2)
m_noise = nn.ZeroPad2d(int(pad_noise))
m_image = nn.ZeroPad2d(int(pad_image))

optimizerD = optim.Adam(netD.parameters(), lr=5e-4, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=5e-4, betas=(0.5, 0.999))

for epoch in range(niter):
    z_opt = generate_noise([1, nzx, nzy])
    z_opt = m_noise(z_opt.expand(1, 3, nzx, nzy))
    noise_ = generate_noise([1, nzx, nzy])
    noise_ = m_noise(noise_.expand(1, 3, nzx, nzy))

    # (1) Update D network: maximize D(x) + D(G(z))
    for j in range(Dsteps):
        netD.zero_grad()
        output = netD(real)
        errD_real = -output.mean()
        errD_real.backward(retain_graph=True)

        if (j == 0) & (epoch == 0):
            prev = torch.full([1, nc_z, nzx, nzy], 0.0)
            prev = m_image(prev)
            z_prev = torch.full([1, nc_z, nzx, nzy], 0.0)
            z_prev = m_noise(z_prev)
        noise = noise_

        fake = netG(noise.detach(), prev)
        output = netD(fake.detach())
        errD_fake = output.mean()
        errD_fake.backward(retain_graph=True)

        gradient_penalty = calc_gradient_penalty(
            netD, real, fake, lambda_grad
        )
        gradient_penalty.backward()
        optimizerD.step()

    # (2) Update G network: maximize D(G(z))
    for j in range(Gsteps):
        netG.zero_grad()
        output = netD(fake.detach())
        errG = -output.mean()
        errG.backward(retain_graph=True)
        from_errG = any(p.grad is not None for p in netG.parameters())
        Z_opt = noise_amp * z_opt + z_prev
        rec_loss = alpha * nn.MSELoss()(
            netG(Z_opt.detach(), z_prev), real
        )
        rec_loss.backward(retain_graph=True)
        optimizerG.step()
        if j == 0:
            first = errG.item()
        print(
            f"epoch {epoch}, G step {j}: errG as at the epoch's first "
            f"step: {errG.item() == first}, netG gets a gradient from "
            f"errG: {from_errG}"
        )
