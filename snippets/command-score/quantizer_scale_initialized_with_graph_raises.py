"""https://github.com/yhhhli/BRECQ/issues/30

The user wanted BRECQ's post-training quantization with the paper's
Fisher-diagonal reconstruction loss (opt_mode 'fisher_diag' instead of
'mse'), which first saves the gradient of a KL loss at each layer's
output for every calibration batch. Reduced from BRECQ's quant/
(UniformAffineQuantizer, QuantModule, QuantModel, AdaRoundQuantizer,
data_utils.save_inp_oup_data / save_grad_data with their hooks,
layer_recon.layer_reconstruction) and main_imagenet.py (weight
quantizers initialized by one forward, --channel_wise off, then
recon_model); the ResNet became two Linear layers on random data.
"""

import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
warnings.filterwarnings("ignore", category=FutureWarning)


def round_ste(x):
    return (x.round() - x).detach() + x


def lp_loss(pred, tgt, p=2.0):
    return (pred - tgt).abs().pow(p).mean()


class UniformAffineQuantizer(nn.Module):
    def __init__(
        self, n_bits=4, channel_wise=False, scale_method="mse"
    ):
        super().__init__()
        self.n_bits = n_bits
        self.n_levels = 2**n_bits
        self.delta = None
        self.zero_point = None
        self.inited = False
        self.channel_wise = channel_wise
        self.scale_method = scale_method

    def forward(self, x):
        if self.inited is False:
            self.delta, self.zero_point = self.init_quantization_scale(
                x
            )
            self.inited = True
        x_int = round_ste(x / self.delta) + self.zero_point
        x_quant = torch.clamp(x_int, 0, self.n_levels - 1)
        return (x_quant - self.zero_point) * self.delta

    def init_quantization_scale(self, x):
        # scale_method 'mse', channel_wise False
        x_max = x.max()
        x_min = x.min()
        best_score = 1e10
        for i in range(80):
            new_max = x_max * (1.0 - (i * 0.01))
            new_min = x_min * (1.0 - (i * 0.01))
            x_q = self.quantize(x, new_max, new_min)
            score = lp_loss(x, x_q, p=2.4)
            if score < best_score:
                best_score = score
                delta = (new_max - new_min) / (2**self.n_bits - 1)
                zero_point = (-new_min / delta).round()
        return delta, zero_point

    def quantize(self, x, max, min):
        delta = (max - min) / (2**self.n_bits - 1)
        zero_point = (-min / delta).round()
        x_int = torch.round(x / delta)
        x_quant = torch.clamp(x_int + zero_point, 0, self.n_levels - 1)
        return (x_quant - zero_point) * delta


class AdaRoundQuantizer(nn.Module):
    def __init__(self, uaq, weight_tensor):
        super().__init__()
        self.delta = uaq.delta
        self.zero_point = uaq.zero_point
        self.n_levels = uaq.n_levels
        self.soft_targets = False
        self.gamma, self.zeta = -0.1, 1.1
        x = weight_tensor.clone()
        rest = (x / self.delta) - torch.floor(x / self.delta)
        alpha = -torch.log(
            (self.zeta - self.gamma) / (rest - self.gamma) - 1
        )
        self.alpha = nn.Parameter(alpha)

    def forward(self, x):
        x_floor = torch.floor(x / self.delta)
        if self.soft_targets:
            x_int = x_floor + self.get_soft_targets()
        else:
            x_int = x_floor + (self.alpha >= 0).float()
        x_quant = torch.clamp(
            x_int + self.zero_point, 0, self.n_levels - 1
        )
        return (x_quant - self.zero_point) * self.delta

    def get_soft_targets(self):
        s = torch.sigmoid(self.alpha) * (self.zeta - self.gamma)
        return torch.clamp(s + self.gamma, 0, 1)


class QuantModule(nn.Module):
    def __init__(self, org_module, weight_quant_params):
        super().__init__()
        self.weight = org_module.weight
        self.org_weight = org_module.weight.data.clone()
        self.bias = org_module.bias
        self.org_bias = org_module.bias.data.clone()
        self.use_weight_quant = False
        self.weight_quantizer = UniformAffineQuantizer(
            **weight_quant_params
        )

    def forward(self, input):
        if self.use_weight_quant:
            weight = self.weight_quantizer(self.weight)
            bias = self.bias
        else:
            weight = self.org_weight
            bias = self.org_bias
        return F.linear(input, weight, bias)

    def set_quant_state(self, weight_quant=False, act_quant=False):
        self.use_weight_quant = weight_quant


class QuantModel(nn.Module):
    def __init__(self, model, weight_quant_params):
        super().__init__()
        for name, child in model.named_children():
            if isinstance(child, nn.Linear):
                setattr(
                    model, name, QuantModule(child, weight_quant_params)
                )
        self.model = model

    def forward(self, input):
        return self.model(input)

    def set_quant_state(self, weight_quant=False, act_quant=False):
        for m in self.model.modules():
            if isinstance(m, QuantModule):
                m.set_quant_state(weight_quant, act_quant)


class StopForwardException(Exception):
    pass


class DataSaverHook:
    def __init__(self):
        self.input_store = None
        self.output_store = None

    def __call__(self, module, input_batch, output_batch):
        self.input_store = input_batch
        self.output_store = output_batch
        raise StopForwardException


class GradSaverHook:
    def __init__(self):
        self.grad_out = None

    def __call__(self, module, grad_input, grad_output):
        self.grad_out = grad_output[0]


def quantize_model_till(model, layer):
    model.set_quant_state(False, False)
    for module in model.modules():
        if isinstance(module, QuantModule):
            module.set_quant_state(True, False)
        if module == layer:
            break


def save_inp_oup_data(model, layer, cali_data, batch_size=32):
    data_saver = DataSaverHook()
    model.set_quant_state(False, False)  # full-precision outputs
    handle = layer.register_forward_hook(data_saver)
    cached = []
    with torch.no_grad():
        for i in range(cali_data.size(0) // batch_size):
            try:  # noqa: SIM105 (as in BRECQ)
                model(cali_data[i * batch_size : (i + 1) * batch_size])
            except StopForwardException:
                pass
            cached.append(
                (
                    data_saver.input_store[0].detach(),
                    data_saver.output_store.detach(),
                )
            )
    handle.remove()
    layer.set_quant_state(True, False)
    return (
        torch.cat([c[0] for c in cached]),
        torch.cat([c[1] for c in cached]),
    )


class GetLayerGrad:
    def __init__(self, model, layer):
        self.model = model
        self.layer = layer
        self.data_saver = GradSaverHook()

    def __call__(self, model_input):
        handle = self.layer.register_backward_hook(self.data_saver)
        with torch.enable_grad():
            self.model.zero_grad()
            inputs = model_input
            self.model.set_quant_state(False, False)
            out_fp = self.model(inputs)
            quantize_model_till(self.model, self.layer)
            out_q = self.model(inputs)
            loss = F.kl_div(
                F.log_softmax(out_q, dim=1),
                F.softmax(out_fp, dim=1),
                reduction="batchmean",
            )
            loss.backward()
        handle.remove()
        self.model.set_quant_state(False, False)
        self.layer.set_quant_state(True, False)
        print(f"grad batch: KL {loss.item():.2e}")
        return self.data_saver.grad_out.data


def save_grad_data(model, layer, cali_data, batch_size=32):
    get_grad = GetLayerGrad(model, layer)
    cached_batches = []
    for i in range(cali_data.size(0) // batch_size):
        cur_grad = get_grad(
            cali_data[i * batch_size : (i + 1) * batch_size]
        )
        cached_batches.append(cur_grad)
    return torch.cat(cached_batches).abs() + 1.0


def layer_reconstruction(
    model, layer, cali_data, iters=3, opt_mode="fisher_diag"
):
    model.set_quant_state(False, False)
    layer.set_quant_state(True, False)
    layer.weight_quantizer = AdaRoundQuantizer(
        uaq=layer.weight_quantizer, weight_tensor=layer.org_weight.data
    )
    layer.weight_quantizer.soft_targets = True
    optimizer = torch.optim.Adam([layer.weight_quantizer.alpha])
    cached_inps, cached_outs = save_inp_oup_data(
        model, layer, cali_data
    )
    cached_grads = save_grad_data(model, layer, cali_data)
    for i in range(iters):
        idx = torch.randperm(cached_inps.size(0))[:32]
        optimizer.zero_grad()
        out_quant = layer(cached_inps[idx])
        err = (
            (
                (out_quant - cached_outs[idx]).pow(2)
                * cached_grads[idx].pow(2)
            )
            .sum(1)
            .mean()
        )
        err.backward(retain_graph=True)
        optimizer.step()
        print(f"recon iter {i}: rec loss {err.item():.4f}")
    layer.weight_quantizer.soft_targets = False


cnn = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4))
cnn.eval()
wq_params = {"n_bits": 4, "channel_wise": False, "scale_method": "mse"}
qnn = QuantModel(model=cnn, weight_quant_params=wq_params)
cali_data = torch.randn(128, 8)

# Initialize weight quantization parameters
qnn.set_quant_state(True, False)
_ = qnn(cali_data[:64])

# recon_model(qnn) with opt_mode='fisher_diag'
for name, module in qnn.model.named_children():
    if isinstance(module, QuantModule):
        print(f"Reconstruction for layer {name}")
        layer_reconstruction(qnn, module, cali_data)
