"""ngp_pl fixed: the refined pose made out of place, the buffer kept.

Source: https://github.com/kwea123/ngp_pl/issues/100
The user wanted to train Instant-NGP with --optimize_ext (learned pose
corrections dR, dT) and --ray_sampling_strategy same_image.
"""

from types import SimpleNamespace

import numpy as np
import torch
from torch import nn
from torch.utils.data import DataLoader, Dataset

torch.manual_seed(0)
np.random.seed(0)


def get_rays(directions, c2w):
    if c2w.ndim == 2:
        # camera coordinate -> world coordinate
        rays_d = directions @ c2w[:, :3].T
    else:
        rays_d = directions[:, None] @ c2w[..., :3].transpose(-1, -2)
        rays_d = rays_d[:, 0]
    # The origin of all rays is the camera origin in world coordinate
    rays_o = c2w[..., 3].expand_as(rays_d)
    return rays_o, rays_d


def axisangle_to_R(v):
    v_ndim = v.ndim
    if v_ndim == 1:
        v = v[None]
    zero = torch.zeros_like(v[:, :1])  # (B, 1)
    skew_v0 = torch.cat([zero, -v[:, 2:3], v[:, 1:2]], 1)  # (B, 3)
    skew_v1 = torch.cat([v[:, 2:3], zero, -v[:, 0:1]], 1)
    skew_v2 = torch.cat([-v[:, 1:2], v[:, 0:1], zero], 1)
    skew_v = torch.stack(
        [skew_v0, skew_v1, skew_v2], dim=1
    )  # (B, 3, 3)
    norm_v = (torch.norm(v, dim=1) + 1e-7)[:, None, None]
    eye = torch.eye(3, device=v.device)
    R = (
        eye
        + (torch.sin(norm_v) / norm_v) * skew_v
        + ((1 - torch.cos(norm_v)) / norm_v**2) * (skew_v @ skew_v)
    )
    if v_ndim == 1:
        R = R[0]
    return R


class BaseDataset(Dataset):  # datasets/base.py, train split
    def __len__(self):
        return 1000

    def __getitem__(self, idx):
        # training pose is retrieved in train.py
        if self.ray_sampling_strategy == "all_images":
            img_idxs = np.random.choice(
                len(self.poses), self.batch_size
            )
        elif self.ray_sampling_strategy == "same_image":
            img_idxs = np.random.choice(len(self.poses), 1)[0]
        # randomly select pixels
        pix_idxs = np.random.choice(
            self.img_wh[0] * self.img_wh[1], self.batch_size
        )
        rays = self.rays[img_idxs, pix_idxs]
        sample = {
            "img_idxs": img_idxs,
            "pix_idxs": pix_idxs,
            "rgb": rays[:, :3],
        }
        return sample


class SceneDataset(BaseDataset):  # stand-in for NeRF-synthetic
    def __init__(self):
        self.img_wh = (4, 4)
        self.poses = torch.cat(
            [torch.eye(3).expand(5, 3, 3), torch.randn(5, 3, 1)], -1
        )
        self.directions = nn.functional.normalize(
            torch.randn(16, 3), dim=-1
        )
        self.rays = torch.rand(5, 16, 3)


class NeRFSystem(nn.Module):  # train.py's LightningModule
    def __init__(self, hparams):
        super().__init__()
        self.hparams = hparams
        self.model = nn.Sequential(  # stand-in for NGP and render()
            nn.Linear(6, 16), nn.ReLU(), nn.Linear(16, 3)
        )

    def forward(self, batch, split):
        if split == "train":
            poses = self.poses[batch["img_idxs"]]
            directions = self.directions[batch["pix_idxs"]]

        if self.hparams.optimize_ext:
            # --8<-- [start:fix]
            dR = axisangle_to_R(self.dR[batch["img_idxs"]])
            t = poses[..., 3] + self.dT[batch["img_idxs"]]
            poses = torch.cat([dR @ poses[..., :3], t[..., None]], -1)
            # --8<-- [end:fix]

        rays_o, rays_d = get_rays(directions, poses)
        rgb = torch.sigmoid(self.model(torch.cat([rays_o, rays_d], -1)))
        return {"rgb": rgb}

    def setup(self):
        self.train_dataset = SceneDataset()
        self.train_dataset.batch_size = self.hparams.batch_size
        self.train_dataset.ray_sampling_strategy = (
            self.hparams.ray_sampling_strategy
        )

    def configure_optimizers(self):
        # define additional parameters
        self.register_buffer(
            "directions", self.train_dataset.directions
        )
        self.register_buffer("poses", self.train_dataset.poses)
        if self.hparams.optimize_ext:
            N = len(self.train_dataset.poses)
            self.register_parameter(
                "dR", nn.Parameter(torch.zeros(N, 3))
            )
            self.register_parameter(
                "dT", nn.Parameter(torch.zeros(N, 3))
            )
        net_params = []
        for n, p in self.named_parameters():
            if n not in ["dR", "dT"]:
                net_params += [p]
        opts = []
        self.net_opt = torch.optim.Adam(net_params, self.hparams.lr)
        opts += [self.net_opt]
        if self.hparams.optimize_ext:
            # learning rate is hard-coded
            opts += [torch.optim.Adam([self.dR, self.dT], 1e-6)]
        return opts

    def train_dataloader(self):
        return DataLoader(self.train_dataset, batch_size=None)

    def training_step(self, batch, batch_nb, *args):
        results = self(batch, split="train")
        loss = ((results["rgb"] - batch["rgb"]) ** 2).mean()
        return loss


hparams = SimpleNamespace(
    optimize_ext=True,
    ray_sampling_strategy="same_image",
    batch_size=8,
    lr=1e-2,
)
system = NeRFSystem(hparams)
system.setup()
opts = system.configure_optimizers()
dataset_poses = system.poses.clone()
# Lightning 1.7's loop with two optimizers: training_step once per
# optimizer, the other optimizer's parameters frozen (toggle_optimizer),
# under autocast for Trainer(precision=16) (bfloat16: this runs on CPU).
for batch_nb, batch in zip(range(3), system.train_dataloader()):
    for optimizer_idx, opt in enumerate(opts):
        mine = {id(p) for g in opt.param_groups for p in g["params"]}
        for p in system.parameters():
            p.requires_grad_(id(p) in mine)
        with torch.autocast("cpu", dtype=torch.bfloat16):
            loss = system.training_step(batch, batch_nb, optimizer_idx)
        opt.zero_grad()
        loss.backward()
        grads = [p.grad for g in opt.param_groups for p in g["params"]]
        trained = all(
            g is not None and g.abs().sum() > 0 for g in grads
        )
        kept = torch.equal(system.poses, dataset_poses)
        print(
            f"step {batch_nb} optimizer {optimizer_idx}: "
            f"image {int(batch['img_idxs'])}, its parameters have "
            f"non-zero .grad: {trained}, poses buffer unchanged: {kept}"
        )
        opt.step()
