"""Source: https://github.com/isl-org/lang-seg/issues/38

Library: pytorch-lightning 2.6.6, run unmodified. LSeg's network is
reduced (CLIP's text encoder and the ViT backbone become one small
layer each: CLIP needs torchvision, which cannot be installed here);
the lines that use `logit_scale` are LSeg's own. The fix: make the
logit scale a constant in `__init__` (no nn.Parameter that no
optimizer has), so it holds no graph from one step to the next.
"""

import logging
import warnings

import numpy as np
import pytorch_lightning as pl
import torch
from torch import nn

logging.getLogger("pytorch_lightning").setLevel(logging.ERROR)
warnings.filterwarnings("ignore", ".*does not have many workers.*")
warnings.filterwarnings("ignore", ".*LeafSpec.*")
torch.manual_seed(0)


class TextEncoder(nn.Module):  # stands in for CLIP's text tower
    def __init__(self, vocab, width):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab, width)

    def encode_text(self, text):
        return self.token_embedding(text)


class LSeg(nn.Module):
    def __init__(self, labels, features=8):
        super().__init__()
        self.labels = labels
        self.out_c = 16
        self.clip_pretrained = TextEncoder(len(labels), self.out_c)
        self.pretrained = nn.Conv2d(3, features, 3, padding=1)
        self.scratch = nn.Module()
        self.scratch.refinenet1 = nn.Conv2d(features, features, 1)
        self.logit_scale = (torch.ones([]) * np.log(1 / 0.07)).exp()
        self.scratch.head1 = nn.Conv2d(features, self.out_c, 1)
        self.text = torch.arange(len(labels))  # clip.tokenize

    def forward(self, x, labelset=""):
        text = self.text
        layer_1 = self.pretrained(x)
        path_1 = self.scratch.refinenet1(layer_1)

        text = text.to(x.device)
        self.logit_scale = self.logit_scale.to(x.device)
        text_features = self.clip_pretrained.encode_text(text)

        image_features = self.scratch.head1(path_1)
        imshape = image_features.shape
        image_features = image_features.permute(0, 2, 3, 1).reshape(
            -1, self.out_c
        )
        image_features = image_features / image_features.norm(
            dim=-1, keepdim=True
        )
        text_features = text_features / text_features.norm(
            dim=-1, keepdim=True
        )
        logits_per_image = (
            self.logit_scale * image_features @ text_features.t()
        )
        return logits_per_image.view(
            imshape[0], imshape[2], imshape[3], -1
        ).permute(0, 3, 1, 2)


class LSegModule(pl.LightningModule):
    def __init__(self, labels, base_lr=0.004):
        super().__init__()
        self.net = LSeg(labels)
        self.base_lr = base_lr
        self.criterion = nn.CrossEntropyLoss()

    def forward(self, x):
        return self.net(x)

    def training_step(self, batch, batch_nb):
        img, target = batch
        out = self(img)
        loss = self.criterion(out, target)
        print(f"step {batch_nb}: loss {loss.item():.3f}")
        return loss

    def on_after_backward(self):
        net = self.net
        scale = net.logit_scale
        grads = [p.grad for p in net.parameters() if p.grad is not None]
        print(
            f"  logit_scale {scale.item():.2f}, "
            f"has a graph: {scale.grad_fn is not None}"
        )
        print(
            f"  pretrained grad nonzero: "
            f"{bool(net.pretrained.weight.grad.abs().sum() > 0)}, "
            f"head1 grad nonzero: "
            f"{bool(net.scratch.head1.weight.grad.abs().sum() > 0)}, "
            f"tensors with a grad: {len(grads)}"
        )

    def configure_optimizers(self):
        params_list = [
            {
                "params": self.net.pretrained.parameters(),
                "lr": self.base_lr,
            },
            {
                "params": self.net.scratch.parameters(),
                "lr": self.base_lr * 10,
            },
        ]
        return torch.optim.SGD(
            params_list, lr=self.base_lr, momentum=0.9
        )


img = torch.randn(12, 3, 6, 6)
target = torch.randint(0, 4, (12, 6, 6))
loader = torch.utils.data.DataLoader(
    torch.utils.data.TensorDataset(img, target), batch_size=4
)
trainer = pl.Trainer(
    max_steps=3,
    accelerator="cpu",
    num_sanity_val_steps=0,
    logger=False,
    enable_checkpointing=False,
    enable_progress_bar=False,
    enable_model_summary=False,
)
trainer.fit(LSegModule(["wall", "floor", "sky", "other"]), loader)
