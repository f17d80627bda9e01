"""StyleMapGAN: DDP ties the encoder's loss to the generator's.

Source: https://github.com/naver-ai/StyleMapGAN/issues/16
The user wanted to train StyleMapGAN as train.py does: a generator
step on the adversarial loss, then an encoder step on the stylecode
reconstruction loss of the (detached) fake image, then the D step.
"""

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn
from torch.nn.parallel import DistributedDataParallel as DDP

torch.manual_seed(0)
# One rank, in this process (the repo spawns one per GPU).
dist.init_process_group(
    "gloo", store=dist.HashStore(), rank=0, world_size=1
)


class Args:
    batch_per_gpu = 4
    latent_channel_size = 8
    size = 16
    lambda_adv_loss = 1.0
    lambda_w_rec_loss = 1.0
    lambda_d_loss = 1.0
    lambda_indomainGAN_D_loss = 1.0
    lr = 0.002


def make_noise(batch, latent_channel_size, device):
    return torch.randn(batch, latent_channel_size, device=device)


def g_nonsaturating_loss(fake_pred):
    return F.softplus(-fake_pred).mean()


def d_logistic_loss(real_pred, fake_pred):
    real_loss = F.softplus(-real_pred)
    fake_loss = F.softplus(fake_pred)
    return real_loss.mean() + fake_loss.mean()


def requires_grad(model, flag=True):
    for p in model.parameters():
        p.requires_grad = flag


def gather_grad(params, world_size):
    for param in params:
        if param.grad is not None:
            dist.all_reduce(param.grad.data, op=dist.ReduceOp.SUM)
            param.grad.data.div_(world_size)


class Generator(nn.Module):  # stand-in: stylecode -> image
    def __init__(self, args):
        super().__init__()
        self.mapping = nn.Linear(args.latent_channel_size, 8)
        self.synthesis = nn.Linear(8, args.size)

    def forward(
        self, z, return_stylecode=False, input_is_stylecode=False
    ):
        stylecode = z if input_is_stylecode else self.mapping(z)
        img = torch.tanh(self.synthesis(stylecode))
        return img, stylecode


class DDPModel(nn.Module):
    def __init__(self, device, args):
        super().__init__()
        self.generator = Generator(args)
        self.discriminator = nn.Sequential(
            nn.Linear(args.size, 8), nn.LeakyReLU(0.2), nn.Linear(8, 1)
        )
        self.encoder = nn.Sequential(
            nn.Linear(args.size, 8), nn.LeakyReLU(0.2), nn.Linear(8, 8)
        )
        self.mse_loss = nn.MSELoss()
        self.device = device
        self.args = args

    def forward(self, real_img, mode):
        if mode == "G":
            z = make_noise(
                self.args.batch_per_gpu,
                self.args.latent_channel_size,
                self.device,
            )
            fake_img, stylecode = self.generator(
                z, return_stylecode=True
            )
            fake_pred = self.discriminator(fake_img)
            adv_loss = g_nonsaturating_loss(fake_pred)
            fake_img = fake_img.detach()
            stylecode = stylecode.detach()
            fake_stylecode = self.encoder(fake_img)
            w_rec_loss = self.mse_loss(stylecode, fake_stylecode)
            return adv_loss, w_rec_loss, stylecode

        elif mode == "D":
            with torch.no_grad():
                z = make_noise(
                    self.args.batch_per_gpu,
                    self.args.latent_channel_size,
                    self.device,
                )
                fake_img, _ = self.generator(z)
                fake_stylecode = self.encoder(real_img)
                fake_img_from_E, _ = self.generator(
                    fake_stylecode, input_is_stylecode=True
                )
            real_pred = self.discriminator(real_img)
            fake_pred = self.discriminator(fake_img)
            d_loss = d_logistic_loss(real_pred, fake_pred)
            fake_pred_from_E = self.discriminator(fake_img_from_E)
            indomainGAN_D_loss = F.softplus(fake_pred_from_E).mean()
            return d_loss, indomainGAN_D_loss


args = Args()
world_size = 1
model = DDPModel("cpu", args)
model = DDP(model, find_unused_parameters=True)
g_module = model.module.generator
g_optim = torch.optim.Adam(g_module.parameters(), lr=args.lr)
e_module = model.module.encoder
e_optim = torch.optim.Adam(e_module.parameters(), lr=args.lr)
d_optim = torch.optim.Adam(
    model.module.discriminator.parameters(), lr=args.lr
)
train_images = torch.rand(8, args.batch_per_gpu, args.size) * 2 - 1

requires_grad(model.module.discriminator, False)
try:
    for i in range(2):
        real_img = train_images[i]

        adv_loss, w_rec_loss, stylecode = model(None, "G")
        adv_loss = adv_loss.mean()
        g_loss = adv_loss * args.lambda_adv_loss
        g_optim.zero_grad()
        g_loss.backward()
        gather_grad(g_module.parameters(), world_size)
        g_optim.step()

        w_rec_loss = w_rec_loss.mean()
        print(
            f"iter {i}: g_loss {g_loss.item():.3f}, "
            f"w_rec_loss {w_rec_loss.item():.3f}"
        )
        e_optim.zero_grad()
        (w_rec_loss * args.lambda_w_rec_loss).backward()
        e_optim.step()

        requires_grad(model.module.discriminator, True)
        d_loss, indomainGAN_D_loss = model(real_img, "D")
        d_optim.zero_grad()
        (
            d_loss * args.lambda_d_loss
            + indomainGAN_D_loss * args.lambda_indomainGAN_D_loss
        ).backward()
        d_optim.step()
        requires_grad(model.module.discriminator, False)
finally:
    # Let the group's threads finish what they hold first: torn down
    # mid-work, a thread waiting for the GIL can deadlock the teardown.
    dist.barrier()
    dist.destroy_process_group()
