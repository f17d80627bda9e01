"""NeuroTorch's TBPTT on a SequentialRNN of two Wilson-Cowan layers, as
the maintainer's merged fix has it: the hidden (here the input) layers'
forwards are decorated too, and return their state detached, and a
layer's first state is detached as it is made, so each truncation's
backward stops at the states it started from.

Source: https://github.com/NeuroTorch/NeuroTorch/pull/137 (fixing
https://github.com/NeuroTorch/NeuroTorch/issues/134): TBPTT's
_decorate_hidden_forward ("Detach hidden states automatically after
call") and BaseLayer._init_forward_state's recursive_detach(state).
The rest is the raising program. The check: each truncation's
gradients equal those of its loss made again from the states it
started from, detached, and the input layer's weights get one.
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
        return recursive_detach(state)  # the fix

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


def recursive_detach(tensors):  # as the fix has it: None passes
    if isinstance(tensors, (tuple, list)):
        return type(tensors)(recursive_detach(o) for o in tensors)
    if isinstance(tensors, torch.Tensor):
        return tensors.detach()
    return tensors


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
        self.layers = [model.input_layer]  # the hidden layers
        self.checks = []

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
        self._calls = []  # what each step started from, for the check
        for layer in self.layers:
            self._original_forwards[layer.name] = (layer, layer.forward)
            layer.forward = self._decorate_hidden_forward(layer.forward)
        for layer in self.output_layers:
            self._original_forwards[layer.name] = (layer, layer.forward)
            layer.forward = self._decorate_forward(
                layer.forward, layer.name
            )

    def undecorate_forwards(self):
        for layer, forward in self._original_forwards.values():
            layer.forward = forward

    def _decorate_hidden_forward(self, forward):  # the fix
        def _forward(*args, **kwargs):
            self._calls.append(recursive_detach(args))
            out = forward(*args, **kwargs)
            if kwargs.get("t") is None:
                return out
            out_tensor, hh = out
            return out_tensor, recursive_detach(hh)

        return _forward

    def _decorate_forward(self, forward, layer_name):
        def _forward(*args, **kwargs):
            self._calls[-1] += (args[1],)  # the output layer's state
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
        self._check(y_batch, self._calls[-backward_t:])
        self._layers_buffer[layer_name].clear()

    def _check(self, y_batch, calls):
        # the truncation's loss made again from the states it started
        # from, detached, with the layers' own forwards
        (in_layer, in_fwd), (_, out_fwd) = (
            self._original_forwards.values()
        )
        out_state, preds = recursive_detach(calls[0][2]), []
        for x_t, in_state, _ in calls:
            features, _ = in_fwd(x_t, recursive_detach(in_state))
            out, out_state = out_fwd(features, out_state)
            preds.append(out)
        loss = self.criterion(torch.stack(preds, dim=1), y_batch)
        ref = torch.autograd.grad(loss, self.params)
        same = all(
            torch.allclose(p.grad, r, atol=1e-7)
            for p, r in zip(self.params, ref)
        )
        trained = in_layer.forward_weights.grad.abs().sum() > 0
        self.checks.append((same, bool(trained)))

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
    same, trained = (all(c) for c in zip(*tbptt.checks))
    print(
        f"iteration {iteration}: loss {batch_loss.item():.4f}, "
        f"{len(tbptt.checks)} truncations, each grads = its loss made "
        f"again from detached states: {same}, input layer trained: "
        f"{trained}"
    )
    tbptt.checks.clear()
