"""NeuroTorch's truncated backpropagation through time (TBPTT) on a
SequentialRNN of two Wilson-Cowan layers: the callback backpropagates
the output layer's loss every few time steps and detaches that layer's
output and state, but the input layer's state keeps its graph from
one truncation to the next, so the next truncation's backward reaches
the graph the last one freed.

Source: https://github.com/NeuroTorch/NeuroTorch/issues/134
("The following error is raised when using multiple layers and TBPTT
in a SequentialRNN model"), fixed by the maintainer's merged
https://github.com/NeuroTorch/NeuroTorch/pull/137 ("Detach hidden
states automatically after call"), whose new test
test_forward_2_wc_layers raises this error on the fix's parent.
Kept: the Wilson-Cowan layer's Euler step (hh_init "inputs": the
first state is a copy of the layer's input; output = hh * (1 - dt/tau)
+ (1 - hh * r) * sigmoid(inputs @ W - mu) * dt/tau, returned as output
and state), SequentialRNN's time loop (each layer called with its last
state and t), TBPTT as at the fix's parent (the output layer's forward
decorated: outputs buffered, a backward every backward_time_steps with
the buffered slice of y_batch, then the output and state detached; an
optimizer step every optim_time_steps; both 10% of the time steps, at
least 1), BPTT's defaults (MSE, AdamW, lr 2e-4, weight decay 1e-2)
and the test's shapes: a batch of 1 sequence of 10 time steps of 5
features, both layers 5 to 5. Changed: the trainer is the test's
MockTrainer's loop, three iterations, no callbacks list, seeded, CPU.
"""

import torch
from torch import nn

torch.manual_seed(0)


class WilsonCowanLayer(nn.Module):
    def __init__(self, size, name, dt=1e-3, tau=1.0, r=0.0, mu=0.0):
        super().__init__()
        self.name = name
        self.dt, self.tau, self.r, self.mu = dt, tau, r, mu
        self.forward_weights = nn.Parameter(torch.empty(size, size))
        nn.init.normal_(self.forward_weights, mean=0.0, std=1.0)

    def _init_forward_state(self, state, inputs):
        if state is None:  # hh_init "inputs"
            state = (inputs.clone(),)
        return state

    def forward(self, inputs, state=None, t=None):
        (hh,) = self._init_forward_state(state, inputs)
        ratio_dt_tau = self.dt / self.tau
        transition_rate = 1 - hh * self.r
        activation = torch.sigmoid(
            torch.matmul(inputs, self.forward_weights) - self.mu
        )
        output = (
            hh * (1 - ratio_dt_tau)
            + transition_rate * activation * ratio_dt_tau
        )
        return output, (output,)


class SequentialRNN(nn.Module):
    def __init__(self, input_layer, output_layer):
        super().__init__()
        self.input_layer, self.output_layer = input_layer, output_layer

    def forward(self, x):
        hidden_states = {"input": None, "output": None}
        outputs_trace = []
        for t in range(x.shape[1]):
            features, hidden_states["input"] = self.input_layer(
                x[:, t], hidden_states["input"], t=t
            )
            out, hidden_states["output"] = self.output_layer(
                features, hidden_states["output"], t=t
            )
            outputs_trace.append(out)
        return torch.stack(outputs_trace, dim=1)


def recursive_detach(tensors):
    if isinstance(tensors, (tuple, list)):
        return type(tensors)(recursive_detach(o) for o in tensors)
    return tensors.detach()


class TBPTT:
    def __init__(self, model, ratio=0.1):
        self.model = model
        self.params = [p for p in model.parameters() if p.requires_grad]
        self.optimizer = torch.optim.AdamW(
            self.params, lr=2e-4, weight_decay=1e-2
        )
        self.criterion = nn.MSELoss()
        self.ratio = ratio
        self.output_layers = [model.output_layer]
        self._original_forwards = {}
        self._layers_buffer = {}
        self._optim_counter = 0

    def on_batch_begin(self, x_batch, y_batch):
        self.y_batch = y_batch
        n_time_steps = y_batch.shape[1]
        self.backward_time_steps = max(
            1, int(self.ratio * n_time_steps)
        )
        self.optim_time_steps = max(1, int(self.ratio * n_time_steps))
        self.optimizer.zero_grad()
        self.decorate_forwards()

    def decorate_forwards(self):
        for layer in self.output_layers:
            self._original_forwards[layer.name] = (layer, layer.forward)
            layer.forward = self._decorate_forward(
                layer.forward, layer.name
            )

    def undecorate_forwards(self):
        for layer, forward in self._original_forwards.values():
            layer.forward = forward

    def _decorate_forward(self, forward, layer_name):
        def _forward(*args, **kwargs):
            out = forward(*args, **kwargs)
            t = kwargs.get("t")
            if t is None:
                return out
            out_tensor, hh = out
            buffer = self._layers_buffer.setdefault(layer_name, [])
            idx = t % self.backward_time_steps
            if idx < len(buffer):
                buffer[idx] = out_tensor
            else:
                buffer.append(out_tensor)
            self._optim_counter += 1
            if len(buffer) == self.backward_time_steps:
                self._backward_at_t(
                    t, self.backward_time_steps, layer_name
                )
                out = recursive_detach(out)
            if self._optim_counter >= self.optim_time_steps:
                self._make_optim_step()
            return out

        return _forward

    def _backward_at_t(self, t, backward_t, layer_name):
        y_batch = self.y_batch[:, (t + 1) - backward_t : t + 1]
        pred_batch = torch.stack(self._layers_buffer[layer_name], dim=1)
        batch_loss = self.criterion(pred_batch, y_batch)
        batch_loss.backward()
        self._layers_buffer[layer_name].clear()

    def _make_optim_step(self):
        self.optimizer.step()
        self.optimizer.zero_grad()
        self._optim_counter = 0

    def on_batch_end(self):
        self.undecorate_forwards()
        self._layers_buffer.clear()
        self.optimizer.zero_grad()


x_shape = (1, 10, 5)
model = SequentialRNN(
    WilsonCowanLayer(x_shape[-1], "input"),
    WilsonCowanLayer(x_shape[-1], "output"),
)
tbptt = TBPTT(model)

for iteration in range(3):
    x_batch, y_batch = torch.randn(*x_shape), torch.randn(*x_shape)
    tbptt.on_batch_begin(x_batch, y_batch)
    pred_batch = model(x_batch)
    with torch.no_grad():
        batch_loss = tbptt.criterion(pred_batch, y_batch)
    tbptt.on_batch_end()
    print(f"iteration {iteration}: loss {batch_loss.item():.4f}")
