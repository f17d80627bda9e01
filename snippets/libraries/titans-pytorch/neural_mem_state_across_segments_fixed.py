"""https://github.com/lucidrains/titans-pytorch/issues/34

titans-pytorch 0.5.5. The user wanted to train a decoder layer built
around Titans' NeuralMemory on a long sequence, one segment at a time,
passing the NeuralMemState that the memory returns to the next call.
Fix: detach the state between segments with the library's
mem_state_detach: its values go on, its graph stays behind.
"""

import torch
from titans_pytorch import NeuralMemory, mem_state_detach


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
to_keys = layer.memory.to_keys.weight
mem_state = None
for i, x in enumerate(segments):
    optimizer.zero_grad()
    carried = "none yet"
    # --8<-- [start:fix]
    if mem_state is not None:
        before = mem_state.weights.clone()
        mem_state = mem_state_detach(mem_state)  # same values, no graph
        after = mem_state.weights
        same = all(
            torch.equal(a, b)
            for a, b in zip(before.values(), after.values())
        )
        carried = "unchanged" if same else "changed"
    # --8<-- [end:fix]
    y, mem_state = layer(x, mem_state)
    loss = (y - x).pow(2).mean()
    loss.backward()
    grad = to_keys.grad is not None and bool(to_keys.grad.any())
    optimizer.step()
    print(
        f"segment {i}: loss {loss.item():.4f}, "
        f"memory at token {mem_state.seq_index}, "
        f"state carried: {carried}, to_keys has grad: {grad}"
    )
