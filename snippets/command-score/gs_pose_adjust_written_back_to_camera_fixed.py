"""3DGS + pose adjust fixed: the adjusted pose set on a per-step copy.

Source: https://github.com/zsh523/3rgs/issues/5
The user wanted to add a pose adjust network (gsplat's CameraOptModule,
as 3R-GS uses) to 3D Gaussian Splatting's train.py, so that camera
poses are refined along with the Gaussians.
"""

import copy
import random

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
random.seed(0)


class CameraOptModule(torch.nn.Module):  # gsplat examples/utils.py
    """Camera pose optimization module."""

    def __init__(self, n: int):
        super().__init__()
        # Delta positions (3D) + Delta rotations (6D)
        self.embeds = torch.nn.Embedding(n, 9)
        # Identity rotation in 6D representation
        self.register_buffer(
            "identity", torch.tensor([1.0, 0.0, 0.0, 0.0, 1.0, 0.0])
        )

    def zero_init(self):
        torch.nn.init.zeros_(self.embeds.weight)

    def forward(self, camtoworlds, embed_ids):
        assert camtoworlds.shape[:-2] == embed_ids.shape
        batch_shape = camtoworlds.shape[:-2]
        pose_deltas = self.embeds(embed_ids)  # (..., 9)
        dx, drot = pose_deltas[..., :3], pose_deltas[..., 3:]
        rot = rotation_6d_to_matrix(
            drot + self.identity.expand(*batch_shape, -1)
        )  # (..., 3, 3)
        transform = torch.eye(4).repeat((*batch_shape, 1, 1))
        transform[..., :3, :3] = rot
        transform[..., :3, 3] = dx
        return torch.matmul(camtoworlds, transform)


def rotation_6d_to_matrix(d6):
    a1, a2 = d6[..., :3], d6[..., 3:]
    b1 = F.normalize(a1, dim=-1)
    b2 = a2 - (b1 * a2).sum(-1, keepdim=True) * b1
    b2 = F.normalize(b2, dim=-1)
    b3 = torch.cross(b1, b2, dim=-1)
    return torch.stack((b1, b2, b3), dim=-2)


class Camera:  # scene/cameras.py, the transforms as 3DGS stores them
    def __init__(self, colmap_id, w2c, image):
        self.colmap_id = colmap_id
        self.original_image = image
        self.world_view_transform = w2c.transpose(0, 1)
        self.projection_matrix = torch.diag(
            torch.tensor([2.0, 2.0, 1.0, 1.0])
        )
        self.full_proj_transform = (
            self.world_view_transform.unsqueeze(0).bmm(
                self.projection_matrix.unsqueeze(0)
            )
        ).squeeze(0)
        self.camera_center = self.world_view_transform.inverse()[3, :3]


class GaussianModel:  # stand-in: means and colors only
    def __init__(self, n):
        self._xyz = nn.Parameter(torch.randn(n, 3) * 0.5)
        self._color = nn.Parameter(torch.rand(n, 3))
        self.optimizer = torch.optim.Adam(
            [self._xyz, self._color], lr=0.01
        )


def render(viewpoint_camera, pc):  # stand-in for the CUDA rasterizer
    xyz1 = torch.cat([pc._xyz, torch.ones(len(pc._xyz), 1)], -1)
    p = xyz1 @ viewpoint_camera.full_proj_transform
    uv = p[:, :2] / (p[:, 3:] + 2.0)  # perspective divide, camera ahead
    grid = torch.stack(
        torch.meshgrid(
            torch.linspace(-1, 1, 8),
            torch.linspace(-1, 1, 8),
            indexing="ij",
        ),
        -1,
    ).reshape(-1, 2)
    w = torch.exp(-((grid[:, None] - uv[None]) ** 2).sum(-1) * 8)
    image = (w @ pc._color).T.reshape(3, 8, 8)
    return {"render": image}


class Scene:
    def __init__(self, n_cams):
        self.train_cameras = []
        for i in range(n_cams):
            w2c = torch.eye(4)
            w2c[:3, 3] = torch.randn(3) * 0.1
            self.train_cameras.append(
                Camera(i + 1, w2c, torch.rand(3, 8, 8))
            )
        self.pose_adjust = CameraOptModule(n_cams)
        self.pose_adjust.zero_init()

    def getTrainCameras(self):
        return self.train_cameras


class Opt:
    iterations = 9
    pose_opt = True


opt = Opt()
scene = Scene(3)
gaussians = GaussianModel(16)
pose_optimizer = torch.optim.Adam(
    scene.pose_adjust.parameters(), lr=1e-3
)
original = {
    cam.colmap_id: cam.world_view_transform.clone()
    for cam in scene.getTrainCameras()
}


def adjusted_from_original(cam_id):
    """The pose meant: the current delta applied once."""
    with torch.no_grad():
        c2w = original[cam_id].inverse().unsqueeze(0)
        adjusted = scene.pose_adjust(c2w, torch.tensor([cam_id - 1]))
        return adjusted.squeeze(0).inverse()


viewpoint_stack = None
for iteration in range(1, opt.iterations + 1):
    # Pick a random Camera
    if not viewpoint_stack:
        viewpoint_stack = scene.getTrainCameras().copy()
    viewpoint_cam = viewpoint_stack.pop(
        random.randint(0, len(viewpoint_stack) - 1)
    )

    used = viewpoint_cam
    if opt.pose_opt:
        # --8<-- [start:fix]
        # a copy for this step: the stored pose stays as loaded
        used = copy.copy(viewpoint_cam)
        c2w = viewpoint_cam.world_view_transform.inverse().unsqueeze(0)
        adjusted_c2w = scene.pose_adjust(
            c2w, torch.tensor([viewpoint_cam.colmap_id - 1])
        ).squeeze(0)
        used.world_view_transform = adjusted_c2w.inverse()
        used.camera_center = adjusted_c2w.inverse()[3, :3]
        used.full_proj_transform = (
            adjusted_c2w.inverse()
            .unsqueeze(0)
            .bmm(used.projection_matrix.unsqueeze(0))
        ).squeeze(0)
        # --8<-- [end:fix]

    render_pkg = render(used, gaussians)
    image = render_pkg["render"]

    # Loss
    gt_image = viewpoint_cam.original_image
    loss = (image - gt_image).abs().mean()
    loss.backward()
    grad = scene.pose_adjust.embeds.weight.grad.abs().sum() > 0
    meant = torch.allclose(
        used.world_view_transform,
        adjusted_from_original(used.colmap_id),
        atol=1e-6,
    )
    print(
        f"iteration {iteration}: camera {viewpoint_cam.colmap_id}, "
        f"pose_adjust grad non-zero: {bool(grad)}, "
        f"pose = original adjusted once: {meant}"
    )

    with torch.no_grad():
        gaussians.optimizer.step()
        gaussians.optimizer.zero_grad(set_to_none=True)
        pose_optimizer.step()
        pose_optimizer.zero_grad(set_to_none=True)
