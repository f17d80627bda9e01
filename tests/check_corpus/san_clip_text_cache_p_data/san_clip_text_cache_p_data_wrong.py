# https://github.com/open-mmlab/mmsegmentation/issues/3577
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class CLIPTextEncoder(nn.Module):
    def __init__(self, vocab=64, embed_dims=16, output_dims=16, context_length=6, cache_feature=True):
        super().__init__()
        self.token_embedding = nn.Embedding(vocab, embed_dims)
        self.positional_embedding = nn.Parameter(0.01 * torch.randn(context_length, embed_dims))
        self.transformer = nn.TransformerEncoderLayer(embed_dims, 2, 32, dropout=0.0, batch_first=True)
        self.ln_final = nn.LayerNorm(embed_dims)
        self.text_projection = nn.Parameter(embed_dims ** -0.5 * torch.randn(embed_dims, output_dims))
        self.logit_scale = nn.Parameter(torch.ones([]) * math.log(1 / 0.07))
        self.bg_embed = nn.Parameter(torch.randn(1, output_dims))
        self.register_buffer("attn_mask", torch.full((context_length, context_length), float("-inf")).triu_(1))
        self.cache_feature = cache_feature
        self.cache = {}

    def encode_text(self, text, normalize=False):
        x = self.token_embedding(text) + self.positional_embedding
        x = self.ln_final(self.transformer(x, src_mask=self.attn_mask))
        x = x[torch.arange(x.shape[0]), text.argmax(dim=-1)] @ self.text_projection
        return F.normalize(x, dim=-1) if normalize else x

    def forward(self, dataset_name, class_tokens):
        if self.cache_feature:
            if dataset_name not in self.cache:
                class_embeds = self.encode_text(class_tokens, normalize=True)
                self.cache[dataset_name] = class_embeds.data
            else:
                class_embeds = self.cache[dataset_name]
        else:
            class_embeds = self.encode_text(class_tokens, normalize=True)
        class_embeds = F.normalize(torch.cat([class_embeds, self.bg_embed]), p=2, dim=-1)
        return class_embeds, self.logit_scale.exp()


text_encoder = CLIPTextEncoder()
image_encoder = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.GELU(), nn.Conv2d(16, 16, 1))
params = list(text_encoder.parameters()) + list(image_encoder.parameters())
optimizer = torch.optim.AdamW(params, lr=1e-2)
text_params = [p for n, p in text_encoder.named_parameters() if n not in ("logit_scale", "bg_embed")]
class_tokens = torch.randint(1, 60, (5, 6))
class_tokens[:, -1] = 63
images = torch.randn(8, 3, 8, 8)
labels = torch.randint(0, 6, (8, 8, 8))

for step in range(10):
    class_embeds, scale = text_encoder("ade", class_tokens)
    feats = F.normalize(image_encoder(images), dim=1)
    logits = scale * torch.einsum("bchw,kc->bkhw", feats, class_embeds)
    loss = F.cross_entropy(logits, labels)
    optimizer.zero_grad()
    loss.backward()
    text_grad = sum(p.grad.norm() ** 2 for p in text_params if p.grad is not None) ** 0.5
    with torch.no_grad():
        fresh = text_encoder.encode_text(class_tokens, normalize=True)
        stale = ((class_embeds[:-1] - fresh).norm() / fresh.norm()).item()
    print(f"step {step}: loss {loss.item():.4f}, text-encoder grad norm {float(text_grad):.4f}, "
          f"rel diff |class embeds used - fresh encode_text| {stale:.4f}")
    optimizer.step()
