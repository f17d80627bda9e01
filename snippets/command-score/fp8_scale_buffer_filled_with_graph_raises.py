"""https://github.com/facebookexperimental/protoquant/pull/25

The user wanted to train a model whose nn.Linear layers were swapped
for protoquant's emulated-FP8 Float8Linear, in an ordinary training
loop. Reduced from protoquant/float8 at 45118ea^ (float8_utils.py,
float8_tensor.py, float8_linear.py, float8_aten_api.py): the bit-level
e4m3/e5m2 encoding became mantissa rounding, the torch.library ops
became plain calls; the scale code is as it was.
"""

import torch
import torch.nn as nn
from torch.utils._pytree import tree_map

torch.manual_seed(0)

# float8_utils.py
E4M3_MAX_POS = 448.0
E5M2_MAX_POS = 57344.0
EPS = 1e-12
E4M3 = 0
E5M2 = 1


def float32_to_float8(x, flavor):
    # emulated: keep 3 (e4m3) or 2 (e5m2) mantissa bits
    max_pos = E4M3_MAX_POS if flavor == E4M3 else E5M2_MAX_POS
    mbits = 3 if flavor == E4M3 else 2
    m, e = torch.frexp(torch.clamp(x, -max_pos, max_pos))
    m = torch.round(m * 2 ** (mbits + 1)) / 2 ** (mbits + 1)
    return torch.ldexp(m, e)


def float8_to_float32(x, flavor):
    return x.clone()


def amax_to_scale(amax, flavor):
    if flavor == E4M3:
        return E4M3_MAX_POS / torch.clamp(amax, min=EPS)
    else:  # e5m2
        return E5M2_MAX_POS / torch.clamp(amax, min=EPS)


def tensor_to_scale(x, flavor):
    amax = torch.max(torch.abs(x))
    return amax_to_scale(amax, flavor)


# float8_aten_api.py
def mm_float8(m1, s1, flavor1, m2, s2, flavor2, s3, flavor3):
    m1_fp32 = float8_to_float32(m1, flavor1) / s1
    m2_fp32 = float8_to_float32(m2, flavor2) / s2
    m3_fp32 = torch.mm(m1_fp32, m2_fp32)
    s3.fill_(tensor_to_scale(m3_fp32, flavor3))
    return float32_to_float8(m3_fp32 * s3, flavor3)


# float8_tensor.py
class Float8ConstrFunc(torch.autograd.Function):
    @staticmethod
    def forward(ctx, tensor, scale=None, flavor=E4M3):
        if isinstance(tensor, Float8Tensor):
            ctx.inp_is_float8 = True
            data = float8_to_float32(tensor._data, tensor._flavor)
            return data / tensor._scale
        ctx.inp_is_float8 = False
        bits_fp8 = float32_to_float8(tensor * scale, flavor)
        return Float8Tensor(bits_fp8, scale, flavor)

    @staticmethod
    def backward(ctx, g):
        if isinstance(g, Float8Tensor) and not ctx.inp_is_float8:
            return g.to_float32(), None, None
        return g, None, None


class Float8Tensor(torch.Tensor):
    def __new__(cls, data, scale, flavor):
        # This is a non-differentiable constructor!
        assert not data.requires_grad
        self = torch.Tensor._make_wrapper_subclass(
            cls,
            data.size(),
            strides=data.stride(),
            dtype=torch.float32,
            device=data.device,
            requires_grad=data.requires_grad,
        )
        self._data = data
        self._scale = scale
        self._flavor = flavor
        return self

    def __repr__(self):
        return f"Float8Tensor(flavor={self._flavor})"

    def to_float32(self):
        return Float8ConstrFunc.apply(self)

    @classmethod
    def from_float32(cls, tensor, scale, flavor):
        return Float8ConstrFunc.apply(tensor, scale, flavor)

    @classmethod
    def __torch_dispatch__(cls, func, types, args, kwargs=None):
        def maybe_unwrap(t):
            if isinstance(t, Float8Tensor):
                return t.to_float32()
            return t

        args = tree_map(maybe_unwrap, args)
        kwargs = tree_map(maybe_unwrap, kwargs or {})
        return func(*args, **kwargs)


# float8_linear.py
class float8_linear_no_bias(torch.autograd.Function):
    @staticmethod
    def forward(
        ctx,
        x_fp8,
        w_fp8,
        fp8_s_out,
        fp8_s_dL_dX,
        fp8_s_dL_dW,
        fp8_s_dL_dY,
    ):
        ctx.save_for_backward(
            x_fp8, w_fp8, fp8_s_dL_dX, fp8_s_dL_dW, fp8_s_dL_dY
        )
        res_bits = mm_float8(
            x_fp8._data,
            x_fp8._scale,
            x_fp8._flavor,
            w_fp8._data.t(),
            w_fp8._scale,
            w_fp8._flavor,
            fp8_s_out,
            E4M3,
        )
        return Float8Tensor(res_bits, fp8_s_out, E4M3)

    @staticmethod
    def backward(ctx, go):
        x_fp8, w_fp8, fp8_s_dL_dX, fp8_s_dL_dW, fp8_s_dL_dY = (
            ctx.saved_tensors
        )
        fp8_s_dL_dY.fill_(tensor_to_scale(go, E5M2))
        go_fp8 = Float8Tensor(
            float32_to_float8(go * fp8_s_dL_dY, E5M2), fp8_s_dL_dY, E5M2
        )
        dL_dX_bits = mm_float8(
            go_fp8._data,
            go_fp8._scale,
            go_fp8._flavor,
            w_fp8._data,
            w_fp8._scale,
            w_fp8._flavor,
            fp8_s_dL_dX,
            E5M2,
        )
        dL_dW_bits = mm_float8(
            x_fp8._data.t(),
            x_fp8._scale,
            x_fp8._flavor,
            go_fp8._data,
            go_fp8._scale,
            go_fp8._flavor,
            fp8_s_dL_dW,
            E5M2,
        ).t()
        dL_dX = Float8Tensor(dL_dX_bits, fp8_s_dL_dX, E5M2)
        dL_dW = Float8Tensor(dL_dW_bits, fp8_s_dL_dW, E5M2)
        return dL_dX, dL_dW, None, None, None, None


class Float8Linear(torch.nn.Linear):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register_buffer("fp8_s_in", torch.tensor(1.0))
        self.register_buffer("fp8_s_weight", torch.tensor(1.0))
        self.register_buffer("fp8_s_out", torch.tensor(1.0))
        self.register_buffer("fp8_s_dL_dX", torch.tensor(1.0))
        self.register_buffer("fp8_s_dL_dW", torch.tensor(1.0))
        self.register_buffer("fp8_s_dL_dY", torch.tensor(1.0))

    def forward(self, x):
        if not isinstance(x, Float8Tensor):
            self.fp8_s_in.fill_(tensor_to_scale(x, E4M3))
            x_fp8 = Float8Tensor.from_float32(x, self.fp8_s_in, E4M3)
        else:
            x_fp8 = x
        self.fp8_s_weight.fill_(tensor_to_scale(self.weight, E4M3))
        w_fp8 = Float8Tensor.from_float32(
            self.weight, self.fp8_s_weight, E4M3
        )
        return float8_linear_no_bias.apply(
            x_fp8,
            w_fp8,
            self.fp8_s_out,
            self.fp8_s_dL_dX,
            self.fp8_s_dL_dW,
            self.fp8_s_dL_dY,
        )

    @classmethod
    def from_float(cls, mod):
        new_mod = cls(mod.in_features, mod.out_features, bias=False)
        new_mod.weight = mod.weight
        return new_mod


# the training loop
m_ref = nn.Linear(8, 4, bias=False)
model = Float8Linear.from_float(m_ref)
optimizer = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(16, 8)
target = torch.randn(16, 4)
for step in range(3):
    y = model(x)
    loss = ((y - target) ** 2).mean()
    print(
        f"step {step}: loss {loss.item():.3f}, fp8_s_weight "
        f"requires_grad {model.fp8_s_weight.requires_grad}"
    )
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
