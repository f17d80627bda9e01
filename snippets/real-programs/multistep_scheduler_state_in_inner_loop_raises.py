# https://github.com/tejank10/null-text-inversion/issues/1
# Null-text inversion with diffusers' PNDMScheduler (its PLMS steps,
# as Stable Diffusion configures it), in plain torch; a tiny MLP
# stands in for the UNet.
import torch
from torch import nn


class PNDMScheduler:
    def __init__(self, num_train_timesteps=1000):
        betas = (
            torch.linspace(
                0.00085**0.5, 0.012**0.5, num_train_timesteps
            )
            ** 2
        )
        self.alphas_cumprod = torch.cumprod(1.0 - betas, dim=0)
        self.final_alpha_cumprod = torch.tensor(1.0)
        self.num_train_timesteps = num_train_timesteps

    def set_timesteps(self, num_inference_steps):
        self.num_inference_steps = num_inference_steps
        ratio = self.num_train_timesteps // num_inference_steps
        self.timesteps = [k * ratio for k in range(num_inference_steps)]
        self.timesteps.reverse()
        self.ets, self.counter, self.cur_sample = [], 0, None

    def step(self, model_output, timestep, sample):
        ratio = self.num_train_timesteps // self.num_inference_steps
        prev_timestep = timestep - ratio
        if self.counter != 1:
            self.ets.append(model_output)
        else:
            prev_timestep = timestep
            timestep = timestep + ratio
        ets = self.ets
        if len(ets) == 1 and self.counter == 0:
            self.cur_sample = sample
        elif len(ets) == 1 and self.counter == 1:
            model_output = (model_output + ets[-1]) / 2
            sample, self.cur_sample = self.cur_sample, None
        elif len(ets) == 2:
            model_output = (3 * ets[-1] - ets[-2]) / 2
        elif len(ets) == 3:
            model_output = (
                23 * ets[-1] - 16 * ets[-2] + 5 * ets[-3]
            ) / 12
        else:
            model_output = (
                55 * ets[-1] - 59 * ets[-2] + 37 * ets[-3] - 9 * ets[-4]
            ) / 24
        prev_sample = self._get_prev_sample(
            sample, timestep, prev_timestep, model_output
        )
        self.counter += 1
        return {"prev_sample": prev_sample}

    def _get_prev_sample(self, sample, timestep, prev_timestep, eps):
        a_t = self.alphas_cumprod[timestep]
        a_prev = (
            self.alphas_cumprod[prev_timestep]
            if prev_timestep >= 0
            else self.final_alpha_cumprod
        )
        sample_coeff = (a_prev / a_t) ** 0.5
        denom = (
            a_t * (1 - a_prev) ** 0.5
            + (a_t * (1 - a_t) * a_prev) ** 0.5
        )
        return sample_coeff * sample - (a_prev - a_t) * eps / denom


class UNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 4)
        )

    def forward(self, latent, t, encoder_hidden_states):
        h = torch.cat([latent, encoder_hidden_states], dim=-1)
        return {"sample": self.net(h) * (1 + t / 1000)}


torch.manual_seed(0)
unet, scheduler = UNet(), PNDMScheduler()
scheduler.set_timesteps(3)
guidance_scale = 7.5
uncond_embeddings, cond_embeddings = (
    torch.randn(1, 4),
    torch.randn(1, 4),
)
# The DDIM inversion trajectory (computed under no_grad).
ddim_latents = [torch.randn(1, 4) for _ in range(4)]

latent_cur = ddim_latents[-1]
for i in range(3):
    uncond_embeddings = uncond_embeddings.clone().detach()
    uncond_embeddings.requires_grad = True
    optimizer = torch.optim.Adam([uncond_embeddings], lr=1e-2)
    latent_prev = ddim_latents[len(ddim_latents) - i - 2]
    t = scheduler.timesteps[i]
    with torch.no_grad():
        noise_pred_cond = unet(latent_cur, t, cond_embeddings)["sample"]
    for j in range(3):
        noise_pred_uncond = unet(latent_cur, t, uncond_embeddings)[
            "sample"
        ]
        noise_pred = noise_pred_uncond + guidance_scale * (
            noise_pred_cond - noise_pred_uncond
        )
        latents_prev_rec = scheduler.step(noise_pred, t, latent_cur)[
            "prev_sample"
        ]
        loss = nn.functional.mse_loss(latents_prev_rec, latent_prev)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        print(f"t={t} inner step {j}: loss {loss.item():.3f}")
    with torch.no_grad():
        context = torch.cat([uncond_embeddings, cond_embeddings])
        noise_pred_uncond, noise_prediction_text = unet(
            torch.cat([latent_cur] * 2), t, context
        )["sample"].chunk(2)
        noise_pred = noise_pred_uncond + guidance_scale * (
            noise_prediction_text - noise_pred_uncond
        )
        latent_cur = scheduler.step(noise_pred, t, latent_cur)[
            "prev_sample"
        ]
