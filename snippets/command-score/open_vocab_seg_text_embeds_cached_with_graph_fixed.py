# https://github.com/open-mmlab/mmsegmentation/issues/3577
# A faithful reduction of mmsegmentation's CLIPTextEncoder
# (mmseg/models/text_encoder/clip_text_encoder.py: encode_text,
# template_encode, forward with cache_feature=True) as the user changed
# it (self._freeze() and @torch.no_grad() removed), inside a tiny
# SAN-style segmentor; the CLIP transformer became 2 residual MLP
# blocks, the tokenizer fixed token ids, the backbone/head one conv.
import torch
import torch.nn as nn
from torch.nn import functional as F

torch.manual_seed(0)


def get_classes(dataset_name):
    return ["background", "road", "car", "person"]


def tokenize(texts, context_length=8):
    # stand-in for mmseg.utils.tokenizer.tokenize: deterministic ids,
    # eot = highest id
    out = torch.zeros(len(texts), context_length, dtype=torch.long)
    for i, t in enumerate(texts):
        ids = [1 + (sum(map(ord, w)) % 60) for w in t.split()][
            : context_length - 1
        ]
        out[i, : len(ids)] = torch.tensor(ids)
        out[i, len(ids)] = 63
    return out


class Block(nn.Module):  # stand-in for mmcv BaseTransformerLayer
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.ffn = nn.Sequential(
            nn.Linear(d, 2 * d), nn.GELU(), nn.Linear(2 * d, d)
        )

    def forward(self, query, attn_masks=None):
        return query + self.ffn(self.norm(query))


class CLIPTextEncoder(nn.Module):
    def __init__(
        self,
        dataset_name=None,
        vocabulary=None,
        templates=("a photo of a {}.", "a {} in the scene."),
        total_vocab_size=64,
        context_length=8,
        embed_dims=16,
        num_layers=2,
        output_dims=16,
        cache_feature=True,
        cat_bg=True,
    ):
        super().__init__()
        self.templates = list(templates)
        self.dataset_name = dataset_name
        self.vocabulary = vocabulary
        self.num_pos = context_length
        self.token_embedding = nn.Embedding(
            total_vocab_size, embed_dims
        )
        self.positional_embedding = nn.Parameter(
            torch.randn(context_length, embed_dims) * 0.01
        )
        self.text_projection = nn.Parameter(
            torch.randn(embed_dims, output_dims) * embed_dims**-0.5
        )
        self.logit_scale = nn.Parameter(
            torch.ones([]) * torch.log(torch.tensor(1 / 0.07))
        )
        self.transformer = nn.ModuleList(
            [Block(embed_dims) for _ in range(num_layers)]
        )
        self.ln_final = nn.LayerNorm(embed_dims)

        self.cache_feature = cache_feature
        if self.cache_feature:
            self.cache = {}

        # removed by the user: the text encoder should train
        # self._freeze()

        self.cat_bg = cat_bg
        if self.cat_bg:
            self.bg_embed = nn.Parameter(
                torch.randn(1, self.text_projection.shape[1])
            )

    def _freeze(self):
        for param in self.parameters():
            param.requires_grad = False

    # @torch.no_grad()   # removed by the user
    def encode_text(self, text, normalize=False):
        x = self.token_embedding(text)
        x = x + self.positional_embedding
        x = x.permute(1, 0, 2)
        for block in self.transformer:
            x = block(query=x)
        x = x.permute(1, 0, 2)
        x = self.ln_final(x)
        x = (
            x[torch.arange(x.shape[0]), text.argmax(dim=-1)]
            @ self.text_projection
        )
        return F.normalize(x, dim=-1) if normalize else x

    def template_encode(self, vocabulary):
        text_embed_bucket = []
        for template in self.templates:
            text_inputs = tokenize(
                [template.format(noun) for noun in vocabulary]
            )
            text_embed = self.encode_text(text_inputs, normalize=True)
            text_embed_bucket.append(text_embed)
        text_embed = torch.stack(text_embed_bucket).mean(dim=0)
        text_embed = text_embed / text_embed.norm(dim=-1, keepdim=True)
        return text_embed

    def forward(self):
        if self.dataset_name is None:
            class_names = self.vocabulary
            if self.cache_feature:
                new_classes = [
                    word
                    for word in class_names
                    if word not in self.cache
                ]
                if len(new_classes) > 0:
                    class_embeds = self.template_encode(new_classes)
                    self.cache.update(
                        dict(zip(new_classes, class_embeds))
                    )
                class_embeds = torch.stack(
                    [self.cache[word] for word in class_names]
                )
            else:
                class_embeds = self.template_encode(class_names)
        else:
            class_names = get_classes(self.dataset_name)
            if class_names[0] == "background":
                class_names = class_names[1:]
            if self.cache_feature:
                if self.dataset_name not in self.cache:
                    class_embeds = self.template_encode(class_names)
                    self.cache[self.dataset_name] = class_embeds
                else:
                    class_embeds = self.cache[self.dataset_name]
            else:
                class_embeds = self.template_encode(class_names)

        if self.cat_bg:
            class_embeds = torch.cat([class_embeds, self.bg_embed])
            class_embeds = F.normalize(class_embeds, p=2, dim=-1)
        return self.logit_scale.exp() * class_embeds


# stand-in for mmseg's MultimodalEncoderDecoder + SideAdapterCLIPHead
class SAN(nn.Module):
    def __init__(self):
        super().__init__()
        self.text_encoder = CLIPTextEncoder(
            dataset_name="cityscapes", cache_feature=False
        )  # the fix: encode the classes again every forward
        self.backbone = nn.Conv2d(3, 16, 3, padding=1)

    def loss(self, inputs, gt_sem_seg):
        text_feats = self.text_encoder()  # [num_classes+1, C]
        pix = F.normalize(self.backbone(inputs), dim=1)  # [B, C, H, W]
        seg_logits = torch.einsum("bchw,kc->bkhw", pix, text_feats)
        return F.cross_entropy(seg_logits, gt_sem_seg)


model = SAN()
optimizer = torch.optim.AdamW(model.parameters(), lr=1e-2)
inputs = torch.randn(2, 3, 8, 8)
gt_sem_seg = torch.randint(0, 4, (2, 8, 8))

for it in range(3):
    loss = model.loss(inputs, gt_sem_seg)
    optimizer.zero_grad()
    loss.backward()
    text_grad = torch.cat(
        [
            p.grad.flatten()
            for n, p in model.text_encoder.named_parameters()
            if n.startswith(
                ("transformer", "token_embedding", "text_projection")
            )
        ]
    ).norm()
    optimizer.step()
    print(
        f"iter {it}: loss {loss.item():.3f}, "
        f"text transformer grad norm {text_grad.item():.3f}"
    )
