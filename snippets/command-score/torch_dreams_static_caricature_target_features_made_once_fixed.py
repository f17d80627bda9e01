"""torch-dreams' caricature(static=True) with the maintainer's fix:
the target is detached in the loss whether it was resized or not.

Source: https://github.com/Mayukhdeb/torch-dreams/issues/38, fixed by
"torch_dreams: Fix #38 detach y manually" (2bc3abc): y = y.detach()
after the resize branch. The check: at each iteration the image
parameter's gradient (before clipping) equals the gradient of the same
loss made again from scratch, with the same random resize, against
target activations taken once under torch.no_grad().
"""

import random

import torch
import torch.nn.functional as F
from torch import nn

random.seed(0)
torch.manual_seed(0)


class random_resize(nn.Module):
    def __init__(self, max_size_factor, min_size_factor):
        super().__init__()
        self.max_size_factor = max_size_factor
        self.min_size_factor = min_size_factor

    def forward(self, x):
        height_factor = random.uniform(
            a=self.min_size_factor, b=self.max_size_factor
        )
        width_factor = random.uniform(
            a=self.min_size_factor, b=self.max_size_factor
        )
        return F.interpolate(
            x,
            scale_factor=(height_factor, width_factor),
            mode="bilinear",
        )


class Hook:
    def __init__(self, module):
        self.hook = module.register_forward_hook(self.hook_fn)

    def hook_fn(self, module, input, output):
        self.input = input
        self.output = output

    def close(self):
        self.hook.remove()


class CaricatureLoss(nn.Module):
    def __init__(self, power=1.0):
        super().__init__()
        self.power = power

    def cosine_dissimilarity(self, x, y, eps=1e-6):
        if x.shape != y.shape:
            # static caricatures: resize the target to the output
            y = F.interpolate(
                y.unsqueeze(0),
                size=(x.shape[-2], x.shape[-1]),
                mode="bilinear",
            )
            y = y.squeeze(0)
        y = y.detach()
        numerator = (x * y).sum()
        denominator = torch.sqrt((y**2).sum()) + eps
        cossim = numerator / denominator
        cossim = torch.maximum(torch.tensor(0.1), cossim)
        return -(cossim * numerator**self.power)

    def forward(self, layer_outputs, ideal_layer_outputs):
        loss = 0.0
        for i in range(len(layer_outputs)):
            loss += self.cosine_dissimilarity(
                layer_outputs[i], ideal_layer_outputs[i]
            )
        return loss


model = nn.Sequential(
    nn.Conv2d(3, 8, 3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(8, 8, 3, stride=2, padding=1),
    nn.ReLU(),
    nn.Conv2d(8, 8, 3, stride=2, padding=1),
    nn.ReLU(),
).eval()
layers = [model[5]]
input_tensor = torch.rand(1, 3, 32, 32)

# caricature(input_tensor, layers, power=1.2, static=True)
param = nn.Parameter(torch.randn(1, 3, 32, 32) * 0.01)
optimizer = torch.optim.AdamW([param], lr=9e-3, weight_decay=1e-3)
hooks = [Hook(layer) for layer in layers]
caricature_loss = CaricatureLoss(power=1.2)
transforms = random_resize(max_size_factor=1.2, min_size_factor=0.5)

model_out = model(input_tensor)
ideal_layer_outputs = [hook.output[0] for hook in hooks]

with torch.no_grad():
    model(input_tensor)
    constant_targets = [hook.output[0] for hook in hooks]


def grad_from_scratch():
    img = torch.sigmoid(param)
    model(transforms(img))
    outputs = [hook.output[0] for hook in hooks]
    loss = caricature_loss(outputs, constant_targets)
    return torch.autograd.grad(loss, param)[0]


for i in range(6):
    state = random.getstate()
    expected = grad_from_scratch()
    random.setstate(state)

    optimizer.zero_grad()
    img = torch.sigmoid(param)
    img_transformed = transforms(img)
    model_out = model(img_transformed)
    layer_outputs = [hook.output[0] for hook in hooks]
    same = layer_outputs[0].shape == ideal_layer_outputs[0].shape
    loss = caricature_loss(layer_outputs, ideal_layer_outputs)
    loss.backward()
    ok = torch.allclose(param.grad, expected)
    print(
        f"iteration {i}: target used as made: {same}, image grad = the"
        f" loss against a constant target: {ok}"
    )
    torch.nn.utils.clip_grad_norm_(param, 1.0)
    optimizer.step()
