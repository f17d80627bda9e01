"""ReStyle: a latent average estimated with its graph, reused per batch.

Source: https://github.com/yuval-alaluf/restyle-encoder/issues/15
The user wanted to train a ReStyle-pSp encoder for a StyleGAN2
generator converted without a saved latent average, estimating it with
the generator's mean_latent() (the decoder stays frozen).
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
STYLE_DIM, N_STYLES, IMG = 16, 4, 12


class Generator(nn.Module):
    """Stands in for rosinality's StyleGAN2: mapping MLP and a head."""

    def __init__(self):
        super().__init__()
        self.style_dim = STYLE_DIM
        self.style = nn.Sequential(
            nn.Linear(STYLE_DIM, STYLE_DIM),
            nn.LeakyReLU(0.2),
            nn.Linear(STYLE_DIM, STYLE_DIM),
        )
        self.synthesis = nn.Linear(N_STYLES * STYLE_DIM, IMG)

    def mean_latent(self, n_latent):
        latent_in = torch.randn(n_latent, self.style_dim)
        latent = self.style(latent_in).mean(0, keepdim=True)
        return latent

    def forward(self, styles, input_is_latent, return_latents):
        latent = styles[0]
        image = torch.tanh(self.synthesis(latent.flatten(1)))
        return image, (latent if return_latents else None)


class pSp(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = nn.Linear(2 * IMG, N_STYLES * STYLE_DIM)
        self.decoder = Generator()
        self.latent_avg = None  # 'latent_avg' not in the checkpoint

    def forward(
        self,
        x,
        latent=None,
        input_code=False,
        return_latents=False,
        average_code=False,
    ):
        if input_code:
            codes = x
        else:
            codes = self.encoder(x).view(-1, N_STYLES, STYLE_DIM)
            # residual step
            if latent is not None:
                # learn error with respect to previous iteration
                codes = codes + latent
            else:
                # first iteration is with respect to the avg latent code
                codes = codes + self.latent_avg.repeat(
                    codes.shape[0], 1, 1
                )
        images, result_latent = self.decoder(
            [codes], input_is_latent=True, return_latents=return_latents
        )
        if return_latents:
            return images, result_latent
        return images


class Coach:
    def __init__(self):
        self.n_iters_per_batch = 3  # --n_iters_per_batch (5 by default)
        self.net = pSp()
        # Estimate latent_avg via dense sampling if it is not available
        if self.net.latent_avg is None:
            self.net.latent_avg = self.net.decoder.mean_latent(
                int(1e4)
            )[0]
        # get the image corresponding to the latent average
        avg_code = self.net.latent_avg.repeat(1, N_STYLES, 1)
        self.avg_image = self.net(avg_code, input_code=True)[0]
        self.avg_image = self.avg_image.float().detach()
        params = list(self.net.encoder.parameters())  # no train_decoder
        self.optimizer = torch.optim.Adam(params, lr=1e-3)
        self.train_dataloader = [
            (torch.rand(4, IMG) * 2 - 1, torch.rand(4, IMG) * 2 - 1)
            for _ in range(3)
        ]

    def calc_loss(self, x, y, y_hat, latent):
        loss_l2 = F.mse_loss(y_hat, y)
        return loss_l2, {"loss": loss_l2.item()}

    def perform_train_iteration_on_batch(self, x, y):
        y_hat, latent = None, None
        for iter in range(self.n_iters_per_batch):
            if iter == 0:
                avg_image_for_batch = self.avg_image.unsqueeze(
                    0
                ).repeat(x.shape[0], 1)
                x_input = torch.cat([x, avg_image_for_batch], dim=1)
                y_hat, latent = self.net.forward(
                    x_input, latent=None, return_latents=True
                )
            else:
                y_hat_clone = (
                    y_hat.clone().detach().requires_grad_(True)
                )
                latent_clone = (
                    latent.clone().detach().requires_grad_(True)
                )
                x_input = torch.cat([x, y_hat_clone], dim=1)
                y_hat, latent = self.net.forward(
                    x_input, latent=latent_clone, return_latents=True
                )
            loss, loss_dict = self.calc_loss(x, y, y_hat, latent)
            loss.backward()
        return loss_dict

    def train(self):
        for batch_idx, batch in enumerate(self.train_dataloader):
            self.optimizer.zero_grad()
            x, y = batch
            loss_dict = self.perform_train_iteration_on_batch(x, y)
            self.optimizer.step()
            print(f"batch {batch_idx}: loss {loss_dict['loss']:.3f}")


coach = Coach()
coach.train()
