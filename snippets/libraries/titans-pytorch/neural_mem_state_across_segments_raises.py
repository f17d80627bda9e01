"""https://github.com/lucidrains/titans-pytorch/issues/34

titans-pytorch 0.5.5. The user wanted to train a decoder layer built
around Titans' NeuralMemory on a long sequence, one segment at a time,
passing the NeuralMemState that the memory returns to the next call.
"""

import torch
from titans_pytorch import NeuralMemory


class TitanDecoderLayer(torch.nn.Module):
    """The thread's layer, its sliding-window attention left out."""

    def __init__(self, dim, segment_size):
        super().__init__()
        self.memory = NeuralMemory(dim=dim, chunk_size=segment_size)
        self.out = torch.nn.Linear(dim, dim)

    def forward(self, hidden_states, mem_state=None):
        retrieved, mem_state = self.memory(
            hidden_states, state=mem_state
        )
        return self.out(hidden_states + retrieved), mem_state


torch.manual_seed(0)
layer = TitanDecoderLayer(dim=16, segment_size=4)
optimizer = torch.optim.Adam(layer.parameters(), lr=1e-3)
segments = torch.randn(3, 2, 8, 16)  # a long sequence, 3 segments
mem_state = None
for i, x in enumerate(segments):
    optimizer.zero_grad()
    y, mem_state = layer(x, mem_state)
    loss = (y - x).pow(2).mean()
    loss.backward()
    optimizer.step()
    print(f"segment {i}: loss {loss.item():.4f}")
