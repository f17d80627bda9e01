"""StyleMapGAN fixed: one backward for the G and E losses DDP ties.

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


def grad_norm(module):
    return sum(p.grad.norm() ** 2 for p in module.parameters()) ** 0.5


def separate_grads_match(module, rng):
    """The same G step without DDP: each loss's own gradient."""
    torch.set_rng_state(rng)
    adv_loss, w_rec_loss, _ = module(None, "G")
    g_params = list(module.generator.parameters())
    e_params = list(module.encoder.parameters())
    g_ref = torch.autograd.grad(
        adv_loss.mean() * args.lambda_adv_loss, g_params
    )
    e_ref = torch.autograd.grad(
        w_rec_loss.mean() * args.lambda_w_rec_loss, e_params
    )
    pairs = zip(g_params + e_params, g_ref + e_ref)
    return all(torch.allclose(p.grad, r) for p, r in pairs)


def train(fix):
    torch.manual_seed(0)
    model = DDPModel("cpu", args)
    model = DDP(model, find_unused_parameters=True)
    g_module = model.module.generator
    e_module = model.module.encoder
    g_optim = torch.optim.Adam(g_module.parameters(), lr=args.lr)
    e_optim = torch.optim.Adam(e_module.parameters(), lr=args.lr)
    d_optim = torch.optim.Adam(
        model.module.discriminator.parameters(), lr=args.lr
    )
    train_images = torch.rand(8, args.batch_per_gpu, args.size) * 2 - 1

    requires_grad(model.module.discriminator, False)
    for i in range(3):
        real_img = train_images[i]

        rng = torch.get_rng_state()
        adv_loss, w_rec_loss, stylecode = model(None, "G")
        adv_loss = adv_loss.mean()
        g_loss = adv_loss * args.lambda_adv_loss
        w_rec_loss = w_rec_loss.mean()
        if fix == "one backward":
            # --8<-- [start:fix]
            g_optim.zero_grad()
            e_optim.zero_grad()
            (g_loss + w_rec_loss * args.lambda_w_rec_loss).backward()
            gather_grad(g_module.parameters(), world_size)
            gather_grad(e_module.parameters(), world_size)
            # --8<-- [end:fix]
            same = separate_grads_match(model.module, rng)
            g_optim.step()
            e_optim.step()
        else:  # a second forward for the encoder loss
            same = "n/a"
            g_optim.zero_grad()
            g_loss.backward()
            gather_grad(g_module.parameters(), world_size)
            g_optim.step()
            _, w_rec_loss, _ = model(None, "G")
            w_rec_loss = w_rec_loss.mean()
            e_optim.zero_grad()
            (w_rec_loss * args.lambda_w_rec_loss).backward()
            e_optim.step()
        print(
            f"  iter {i}: g_loss {g_loss.item():.3f}, "
            f"w_rec_loss {w_rec_loss.item():.3f}, "
            f"G grad {grad_norm(g_module):.3f}, "
            f"E grad {grad_norm(e_module):.3f}, "
            f"same as two separate backwards: {same}"
        )

        requires_grad(model.module.discriminator, True)
        d_loss, indomainGAN_D_loss = model(real_img, "D")
        d_optim.zero_grad()
        (
            d_loss * args.lambda_d_loss
            + indomainGAN_D_loss * args.lambda_indomainGAN_D_loss
        ).backward()
        d_optim.step()
        requires_grad(model.module.discriminator, False)


try:
    for fix in ("one backward", "second forward"):
        print(fix)
        train(fix)
finally:
    # Let the group's threads finish what they hold first: torn down
    # mid-work, a thread waiting for the GIL can deadlock the teardown.
    dist.barrier()
    dist.destroy_process_group()
