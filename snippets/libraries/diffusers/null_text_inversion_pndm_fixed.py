"""Source: https://github.com/tejank10/null-text-inversion/issues/1

Library: diffusers 0.42.1 (UNet2DConditionModel, PNDMScheduler), run
unmodified, with a tiny UNet built from a config (no weights). The
reporter's notebook is not readable in the stored copy of the
repository, so its null_text_inversion() loop is written from the
algorithm the repository implements (Null-text Inversion): for each
timestep, a few Adam steps on the unconditional embedding so that
scheduler.step() lands on the inverted latent. What the user wanted:
run that loop with PNDMScheduler instead of DDIM.
The fix: each optimisation step runs scheduler.step() on a copy of the
scheduler, so the real one keeps only the history of the trajectory.
"""

import copy

import torch
import torch.nn.functional as F
from diffusers import PNDMScheduler, UNet2DConditionModel

torch.manual_seed(0)
unet = UNet2DConditionModel(
    sample_size=8,
    in_channels=4,
    out_channels=4,
    layers_per_block=1,
    block_out_channels=(8, 16),
    norm_num_groups=4,
    down_block_types=("CrossAttnDownBlock2D", "DownBlock2D"),
    up_block_types=("UpBlock2D", "CrossAttnUpBlock2D"),
    cross_attention_dim=8,
    attention_head_dim=2,
).requires_grad_(False)
scheduler = PNDMScheduler(skip_prk_steps=True)
scheduler.set_timesteps(3)
cond = torch.randn(1, 4, 8)  # the prompt's text embedding
uncond = torch.randn(1, 4, 8)  # the null text's embedding
guidance_scale = 7.5
# The DDIM-inverted trajectory the loop must retrace, last latent first.
n = len(scheduler.timesteps)
latents = [torch.randn(1, 4, 8, 8) for _ in range(n + 1)]


def noise_pred(latent, t, uncond_embeddings):
    eps_u = unet(latent, t, encoder_hidden_states=uncond_embeddings)
    eps_c = unet(latent, t, encoder_hidden_states=cond).sample
    eps_u = eps_u.sample
    return eps_u + guidance_scale * (eps_c - eps_u)


def null_text_inversion(num_inner_steps=2):
    uncond_list = []
    latent_cur = latents[0]
    for i, t in enumerate(scheduler.timesteps):
        uncond_embeddings = uncond.clone().requires_grad_(True)
        optimizer = torch.optim.Adam([uncond_embeddings], lr=1e-2)
        latent_prev = latents[i + 1]
        for j in range(num_inner_steps):
            pred = noise_pred(latent_cur, t, uncond_embeddings)
            # --8<-- [start:fix]
            trial = copy.deepcopy(scheduler)  # history without graphs
            out = trial.step(pred, t, latent_cur)
            latents_prev_rec = out.prev_sample
            # --8<-- [end:fix]
            loss = F.mse_loss(latents_prev_rec, latent_prev)
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            grad = uncond_embeddings.grad.abs().sum().item()
            print(
                f"t={int(t)} inner {j}: loss {loss.item():.2f}, "
                f"embedding grad nonzero: {grad > 0}"
            )
        uncond_list.append(uncond_embeddings[:1].detach())
        with torch.no_grad():
            pred = noise_pred(latent_cur, t, uncond_embeddings)
            latent_cur = scheduler.step(pred, t, latent_cur).prev_sample
    return uncond_list, latent_cur


uncond_list, latent_end = null_text_inversion()
print(
    "scheduler steps:",
    scheduler.counter,
    "for",
    len(scheduler.timesteps),
    "timesteps",
)
print(
    "history holds a graph:",
    any(e.grad_fn is not None for e in scheduler.ets),
)
# Replay the trajectory with the optimised embeddings and a fresh
# scheduler: the editing pass will do exactly this.
replay = PNDMScheduler(skip_prk_steps=True)
replay.set_timesteps(3)
latent = latents[0]
with torch.no_grad():
    for t, emb in zip(replay.timesteps, uncond_list):
        pred = noise_pred(latent, t, emb)
        latent = replay.step(pred, t, latent).prev_sample
print(
    "replay reaches the same latent:",
    torch.allclose(latent, latent_end, atol=1e-5),
)
