"""UniTR: the image input layer caches learned position embeddings.

Source: https://github.com/Haiyang-W/UniTR/issues/5
The user wanted to train UniTR with the cache config (ACCELERATE: True
in MM_BACKBONE), which the README says speeds up training.
"""

import copy

import torch
from torch import nn

torch.manual_seed(0)


class PositionEmbeddingLearned(nn.Module):  # dsvt_utils.py
    """
    Absolute pos embedding, learned.
    """

    def __init__(self, input_channel, num_pos_feats):
        super().__init__()
        self.position_embedding_head = nn.Sequential(
            nn.Linear(input_channel, num_pos_feats),
            nn.BatchNorm1d(num_pos_feats),
            nn.ReLU(inplace=True),
            nn.Linear(num_pos_feats, num_pos_feats),
        )

    def forward(self, xyz):
        position_embedding = self.position_embedding_head(xyz)
        return position_embedding


class UniTRInputLayer(nn.Module):
    """DSVTInputLayer for image patches (one stage, two shifts)."""

    def __init__(self, model_cfg, accelerate=False):
        super().__init__()
        self.model_cfg = model_cfg
        self.window_shape = model_cfg["window_shape"]
        self.num_shifts = [2]
        self.num_blocks = model_cfg["num_blocks"]
        self.posembed_layers = nn.ModuleList(
            nn.ModuleList(
                PositionEmbeddingLearned(2, model_cfg["d_model"])
                for _ in range(self.num_shifts[0])
            )
            for _ in range(self.num_blocks)
        )
        self.input_image = model_cfg.get("input_image", False)
        self.key_name = "patch" if self.input_image else "voxel"
        # only support image input accelerate
        self.accelerate = self.input_image and accelerate
        self.process_info = None

    def forward(self, batch_dict):
        if (
            self.input_image
            and self.process_info is not None
            and (
                batch_dict["patch_coords"][:, 0][-1]
                == self.process_info["voxel_coors_stage0"][:, 0][-1]
            )
        ):
            patch_info = dict()
            for k in self.process_info:
                if torch.is_tensor(self.process_info[k]):
                    patch_info[k] = self.process_info[k].clone()
                else:
                    patch_info[k] = copy.deepcopy(self.process_info[k])
            # accelerate by caching pos embed as patch coords are fixed
            if not self.accelerate:
                for block_id in range(self.num_blocks):
                    for shift_id in range(self.num_shifts[0]):
                        patch_info[
                            f"pos_embed_stage0_block{block_id}"
                            f"_shift{shift_id}"
                        ] = self.get_pos_embed(
                            patch_info[
                                f"coors_in_win_stage0_shift{shift_id}"
                            ],
                            0,
                            block_id,
                            shift_id,
                        )
            return patch_info

        key_name = self.key_name
        coors = batch_dict[f"{key_name}_coords"].long()
        info = {}
        # original input voxel coors
        info["voxel_coors_stage0"] = coors.clone()
        info = self.window_partition(info, 0)
        for block_id in range(self.num_blocks):
            for shift_id in range(self.num_shifts[0]):
                info[
                    f"pos_embed_stage0_block{block_id}_shift{shift_id}"
                ] = self.get_pos_embed(
                    info[f"coors_in_win_stage0_shift{shift_id}"],
                    0,
                    block_id,
                    shift_id,
                )

        # save process info for image input as patch coords are fixed
        if self.input_image:
            self.process_info = {}
            for k in info:
                if k != "patch_feats_stage0":
                    if torch.is_tensor(info[k]):
                        self.process_info[k] = info[k].clone()
                    else:
                        self.process_info[k] = copy.deepcopy(info[k])
        return info

    @torch.no_grad()
    def window_partition(self, info, stage_id):
        coors = info[f"voxel_coors_stage{stage_id}"]
        win_x, win_y = self.window_shape
        for shift_id in range(self.num_shifts[stage_id]):
            shift = (win_x // 2) * shift_id
            zyx = coors[:, 1:].clone()
            zyx[:, 1] = (zyx[:, 1] + shift) % win_y
            zyx[:, 2] = (zyx[:, 2] + shift) % win_x
            info[f"coors_in_win_stage{stage_id}_shift{shift_id}"] = zyx
        return info

    def get_pos_embed(self, coors_in_win, stage_id, block_id, shift_id):
        win_x, win_y = self.window_shape
        embed_layer = self.posembed_layers[block_id][shift_id]
        y = coors_in_win[:, 1] - win_y / 2
        x = coors_in_win[:, 2] - win_x / 2
        location = torch.stack((x, y), dim=-1)
        pos_embed = embed_layer(location)
        return pos_embed


class UniTR(nn.Module):  # the image branch of the MM_BACKBONE
    def __init__(self, model_cfg):
        super().__init__()
        self.accelerate = model_cfg.get("ACCELERATE", False)
        cfg = model_cfg["IMAGE_INPUT_LAYER"]
        self.image_input_layer = UniTRInputLayer(cfg, self.accelerate)
        d_model, self.patch = cfg["d_model"], model_cfg["patch_size"]
        self.patch_embed = nn.Conv2d(3, d_model, self.patch, self.patch)
        self.blocks = nn.ModuleList(  # stand-in for the set attention
            nn.Linear(d_model, d_model)
            for _ in range(2 * cfg["num_blocks"])
        )
        self.patch_coords = None

    def forward(self, batch_dict):
        imgs = batch_dict["camera_imgs"]
        B, N = imgs.shape[:2]
        imgs = self.patch_embed(imgs.flatten(0, 1))
        h, w = imgs.shape[-2:]
        batch_dict["patch_features"] = imgs.flatten(2).transpose(1, 2)
        batch_dict["patch_features"] = batch_dict[
            "patch_features"
        ].reshape(-1, imgs.shape[1])
        if self.patch_coords is None:
            batch_idx = torch.arange(B * N).repeat_interleave(h * w)
            y, x = torch.meshgrid(
                torch.arange(h), torch.arange(w), indexing="ij"
            )
            zyx = torch.stack(
                [torch.zeros(h * w), y.flatten(), x.flatten()], dim=-1
            )
            self.patch_coords = torch.cat(
                [batch_idx[:, None], zyx.repeat(B * N, 1)], dim=-1
            ).long()
        batch_dict["patch_coords"] = self.patch_coords.clone()
        patch_info = self.image_input_layer(batch_dict)
        patch_feat = batch_dict["patch_features"]
        i = 0
        for b in range(self.image_input_layer.num_blocks):
            for s in range(2):
                pos = patch_info[f"pos_embed_stage0_block{b}_shift{s}"]
                patch_feat = patch_feat + torch.relu(
                    self.blocks[i](patch_feat + pos)
                )
                i += 1
        batch_dict["patch_features"] = patch_feat
        return batch_dict


MM_BACKBONE = {
    "ACCELERATE": True,  # option of cache unitr backbone
    "patch_size": 4,
    "IMAGE_INPUT_LAYER": {
        "input_image": True,
        "window_shape": [2, 2],
        "num_blocks": 2,
        "d_model": 8,
    },
}
model = UniTR(MM_BACKBONE)
head = nn.Linear(8, 1)  # stand-in for the fuser and the detection head
model.train()
optimizer = torch.optim.AdamW(
    list(model.parameters()) + list(head.parameters()), lr=1e-3
)
for it in range(3):
    batch_dict = {"camera_imgs": torch.randn(1, 2, 3, 8, 8)}
    target = torch.randn(8, 1)
    batch_dict = model(batch_dict)
    loss = nn.functional.mse_loss(
        head(batch_dict["patch_features"]), target
    )
    print(f"iter {it}: loss {loss.item():.3f}")
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
