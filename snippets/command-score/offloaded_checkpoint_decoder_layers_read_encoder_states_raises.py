"""Unsloth's offloaded gradient checkpointing on Whisper's decoder
layers, which receive the encoder's output as an argument.

Source: https://github.com/unslothai/unsloth/issues/3592
The user wanted to fine-tune Whisper (encoder and decoder) with
gradient checkpointing, as Unsloth's Whisper notebook does.
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
DIM, VOCAB = 16, 24


class Unsloth_Offloaded_Gradient_Checkpointer(torch.autograd.Function):
    """unsloth_zoo's checkpointer (the CPU offload left out)."""

    @staticmethod
    def forward(ctx, forward_function, hidden_states, *args):
        saved_hidden_states = hidden_states.detach().clone()
        with torch.no_grad():
            output = forward_function(hidden_states, *args)
        ctx.save_for_backward(saved_hidden_states)
        ctx.forward_function = forward_function
        ctx.args = args
        return output

    @staticmethod
    def backward(ctx, dY):
        (hidden_states,) = ctx.saved_tensors
        hidden_states = hidden_states.detach()
        hidden_states.requires_grad_(True)
        with torch.enable_grad():
            (output,) = ctx.forward_function(hidden_states, *ctx.args)
        torch.autograd.backward(output, dY)
        return (None, hidden_states.grad) + (None,) * len(ctx.args)


class DecoderLayer(nn.Module):
    """Self-attention left out; cross-attention to the encoder."""

    def __init__(self):
        super().__init__()
        self.q = nn.Linear(DIM, DIM)
        self.fc = nn.Linear(DIM, DIM)

    def forward(self, hidden_states, encoder_hidden_states):
        scores = self.q(
            hidden_states
        ) @ encoder_hidden_states.transpose(1, 2)
        attended = scores.softmax(-1) @ encoder_hidden_states
        return (hidden_states + torch.tanh(self.fc(attended)),)


class TinyWhisper(nn.Module):
    def __init__(self, layers=2):
        super().__init__()
        self.encoder = nn.Sequential(nn.Linear(8, DIM), nn.GELU())
        self.embed = nn.Embedding(VOCAB, DIM)
        self.layers = nn.ModuleList(
            DecoderLayer() for _ in range(layers)
        )
        self.proj_out = nn.Linear(DIM, VOCAB)
        self.gradient_checkpointing = True

    def forward(self, input_features, decoder_input_ids):
        encoder_hidden_states = self.encoder(input_features)
        hidden_states = self.embed(decoder_input_ids)
        for layer in self.layers:
            if self.gradient_checkpointing and self.training:
                (hidden_states,) = (
                    Unsloth_Offloaded_Gradient_Checkpointer.apply(
                        layer, hidden_states, encoder_hidden_states
                    )
                )
            else:
                (hidden_states,) = layer(
                    hidden_states, encoder_hidden_states
                )
        return self.proj_out(hidden_states)


model = TinyWhisper().train()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
features = torch.randn(2, 10, 8)  # log-mel frames
labels = torch.randint(0, VOCAB, (2, 6))
logits = model(features, labels)
loss = F.cross_entropy(logits.flatten(0, 1), labels.flatten())
print(f"step 0: loss {loss.item():.3f}")
loss.backward()
opt.step()
