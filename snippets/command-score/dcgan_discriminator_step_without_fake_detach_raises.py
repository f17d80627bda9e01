"""pytorch/examples' DCGAN with `.detach()` taken out of the
discriminator's fake batch.

Source: https://github.com/pytorch/examples/issues/116
The user wanted to know why dcgan/main.py calls
`netD(fake.detach())` in the discriminator's step, since optimizerD
only updates netD; soumith answered that it is for speed, not
correctness. A later comment reports that leaving the detach out
gives this error, and another that the detach keeps the generator's
graph for its own step. The raising program is the example with the
detach taken out.
Kept: _netG (transposed convolutions with BatchNorm and ReLU, Tanh
out) and _netD (strided convolutions, LeakyReLU in place, BatchNorm,
Sigmoid out, output viewed as (-1, 1)), weights_init, BCELoss with
real_label 1 and fake_label 0, and the training loop (D on a real
batch, D on the fake batch, optimizerD.step(), then netG.zero_grad()
and G's loss from D's verdict on the same fake batch); changed: 3x16x16
random images instead of LSUN, nz 8, ngf and ndf 4, one layer fewer
in each net, no data_parallel, no Variable, .item() for .data[0].
"""

import torch
from torch import nn, optim

torch.manual_seed(0)
nz, ngf, ndf, nc = 8, 4, 4, 3


def weights_init(m):
    classname = m.__class__.__name__
    if classname.find("Conv") != -1:
        m.weight.data.normal_(0.0, 0.02)
    elif classname.find("BatchNorm") != -1:
        m.weight.data.normal_(1.0, 0.02)
        m.bias.data.fill_(0)


class _netG(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 4, 4, 1, 0, bias=False),
            nn.BatchNorm2d(ngf * 4),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ngf * 2),
            nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, nc, 4, 2, 1, bias=False),
            nn.Tanh(),
        )

    def forward(self, input):
        return self.main(input)


class _netD(nn.Module):
    def __init__(self):
        super().__init__()
        self.main = nn.Sequential(
            nn.Conv2d(nc, ndf, 4, 2, 1, bias=False),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf, ndf * 2, 4, 2, 1, bias=False),
            nn.BatchNorm2d(ndf * 2),
            nn.LeakyReLU(0.2, inplace=True),
            nn.Conv2d(ndf * 2, 1, 4, 1, 0, bias=False),
            nn.Sigmoid(),
        )

    def forward(self, input):
        return self.main(input).view(-1, 1)


netG = _netG()
netG.apply(weights_init)
netD = _netD()
netD.apply(weights_init)
criterion = nn.BCELoss()
real_label = 1.0
fake_label = 0.0
optimizerD = optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
optimizerG = optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
dataloader = [torch.rand(4, nc, 16, 16) * 2 - 1 for _ in range(2)]

for i, real_cpu in enumerate(dataloader):
    # (1) Update D network: maximize log(D(x)) + log(1 - D(G(z)))
    netD.zero_grad()
    batch_size = real_cpu.size(0)
    label = torch.full((batch_size, 1), real_label)
    output = netD(real_cpu)
    errD_real = criterion(output, label)
    errD_real.backward()
    D_x = output.mean().item()

    noise = torch.randn(batch_size, nz, 1, 1)
    fake = netG(noise)
    label.fill_(fake_label)
    output = netD(fake)
    errD_fake = criterion(output, label)
    errD_fake.backward()
    D_G_z1 = output.mean().item()
    errD = errD_real + errD_fake
    optimizerD.step()
    print(f"[{i}] Loss_D: {errD.item():.4f} D(x): {D_x:.4f}")

    # (2) Update G network: maximize log(D(G(z)))
    netG.zero_grad()
    label.fill_(real_label)
    output = netD(fake)
    errG = criterion(output, label)
    errG.backward()
    D_G_z2 = output.mean().item()
    optimizerG.step()
    print(
        f"[{i}] Loss_G: {errG.item():.4f} "
        f"D(G(z)): {D_G_z1:.4f} / {D_G_z2:.4f}"
    )
