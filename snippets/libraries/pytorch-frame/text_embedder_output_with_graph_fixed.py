"""Fix: the text embedder returns its embeddings detached.

Source: https://github.com/pyg-team/pytorch-frame/pull/229
Tested with pytorch-frame 0.3.0. The user wanted to train a tabular
model on a table whose text column is embedded once, when the dataset
is materialized, by a hash embedder that is not part of the model.
"""

import zlib

import pandas as pd
import torch
import torch.nn.functional as F
import torch_frame
from torch.nn import Embedding
from torch_frame.config.text_embedder import TextEmbedderConfig
from torch_frame.data import DataLoader, Dataset
from torch_frame.nn import LinearEmbeddingEncoder, LinearEncoder
from torch_frame.nn.models import ResNet

torch.manual_seed(0)


class HashTextEmbedder:
    def __init__(self, out_channels, num_hash_bins=64, device=None):
        self.out_channels = out_channels
        self.num_hash_bins = num_hash_bins
        self.device = device
        self.embedding = Embedding(num_hash_bins, out_channels).to(
            device
        )

    def __call__(self, sentences):
        idx = torch.LongTensor(  # hash(s), the same in every process
            [
                zlib.crc32(s.encode()) % self.num_hash_bins
                for s in sentences
            ],
            device=self.device,
        )
        return self.embedding(idx).detach()


words = ["red", "green", "blue", "cyan"]
df = pd.DataFrame(
    {
        "x": torch.randn(16).tolist(),
        "text": [f"{words[i % 4]} item {i % 3}" for i in range(16)],
        "y": torch.randint(0, 2, (16,)).tolist(),
    }
)
dataset = Dataset(
    df,
    col_to_stype={
        "x": torch_frame.numerical,
        "text": torch_frame.text_embedded,
        "y": torch_frame.categorical,
    },
    target_col="y",
    col_to_text_embedder_cfg=TextEmbedderConfig(
        text_embedder=HashTextEmbedder(8), batch_size=None
    ),
)
dataset.materialize()
loader = DataLoader(dataset.tensor_frame, batch_size=8, shuffle=False)
model = ResNet(
    channels=8,
    out_channels=2,
    num_layers=1,
    col_stats=dataset.col_stats,
    col_names_dict=dataset.tensor_frame.col_names_dict,
    stype_encoder_dict={
        torch_frame.stype.numerical: LinearEncoder(),
        torch_frame.stype.embedding: LinearEmbeddingEncoder(),
    },
)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-2)
text = dataset.tensor_frame.feat_dict[torch_frame.stype.embedding]
print(
    "materialized text embeddings carry a graph:",
    text.values.requires_grad,
)
text_encoder = model.encoder.encoder_dict["embedding"]
for epoch in range(3):
    for i, tf in enumerate(loader):
        loss = F.cross_entropy(model(tf), tf.y)
        optimizer.zero_grad()
        loss.backward()
        grads = [p.grad for p in text_encoder.parameters()]
        trained = all(
            g is not None and g.abs().sum() > 0 for g in grads
        )
        optimizer.step()
        print(
            f"epoch {epoch} batch {i}: loss {loss.item():.3f},"
            f" text encoder grad nonzero: {trained}"
        )
