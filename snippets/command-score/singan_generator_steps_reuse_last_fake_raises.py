"""SinGAN's training at its coarsest scale: the discriminator's three
steps each make a fake image, and the generator's three steps then
all score the last of them, so the second generator step
backpropagates through the generator graph the first one freed.

Source: https://github.com/tamarott/SinGAN/pull/117 ("Fix for PyTorch
1.6"). SinGAN's train_single_scale calls errG.backward(
retain_graph=True), the error message's advice; from PyTorch 1.5 on
that raises the in-place error instead (issues #103, #108, #110,
#137, #147, #152: the generator's last convolution weight, [3, 32, 3,
3], at version 2), since the first generator step's optimizer changed
the weights the retained graph saved. The pull request replaces
netD(fake) with netD(fake.detach()) in the generator's loop; two
reviewers answer that netG is then not updated any more, and one
proposes to make a new fake in each generator step, without
retain_graph=True; issue #148 proposes the same, and issue #140 reports
that the generator's loop uses the output of the generator before its
update. The raising program is train_single_scale with
retain_graph=True taken out of errG.backward.
Kept from SinGAN/models.py: ConvBlock (3x3 convolution, BatchNorm,
LeakyReLU 0.2 in place), weights_init, WDiscriminator and
GeneratorConcatSkip2CleanAdd (head, three body blocks of 32 channels,
tail; the generator adds its input image, cropped); from
SinGAN/training.py, train_single_scale at the coarsest scale (Gs
empty): the noise padding, z_opt and noise_ drawn each epoch as one
channel expanded to three, prev and z_prev zero, Dsteps 3 (real,
fake.detach(), the gradient penalty), then Gsteps 3 (errG from
netD(fake), the reconstruction loss alpha * MSE(netG(Z_opt), real),
optimizerG.step()); from SinGAN/functions.py, calc_gradient_penalty;
the defaults nfc 32, ker_size 3, num_layer 5, padd_size 0, noise_amp
0.1, lambda_grad 0.1, alpha 10, Adam at 5e-4 with betas (0.5, 0.999).
Changed: a random 3x25x25 image in [-1, 1] instead of a file, no
learning-rate schedulers, no image saving, two epochs, a line printed
after each generator step instead of every 25 epochs, CPU.
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
        output = netD(fake)
        errG = -output.mean()
        errG.backward()
        Z_opt = noise_amp * z_opt + z_prev
        rec_loss = alpha * nn.MSELoss()(
            netG(Z_opt.detach(), z_prev), real
        )
        rec_loss.backward(retain_graph=True)
        optimizerG.step()
        print(
            f"epoch {epoch}, G step {j}: errG {errG.item():.4f}, "
            f"rec_loss {rec_loss.item():.4f}"
        )
