"""PyTorch's neural style transfer tutorial with the content target
detached, as the tutorial has it.

Source: https://fangdahan.medium.com/pytorch-style-transfer-tutorial-91e58d6b1055
The blog post walks through the tutorial's neural transfer (an input
image optimized by L-BFGS so that its features match a content
image's and its Gram matrices a style image's) and explains why
ContentLoss detaches its target: "Otherwise PyTorch will try to back
propagate the graph twice", with this error.
Kept: ContentLoss, gram_matrix, StyleLoss (its target detached, as
in the tutorial), Normalization, get_style_model_and_losses
(the CNN's layers renamed, a loss module after the chosen
convolutions, the model trimmed after the last one),
get_input_optimizer and run_style_transfer's closure (clamp,
zero_grad, forward, weighted sum of the losses, backward) as in the
tutorial of the time, the CNN's weights left requiring grad as a
loaded VGG19's are, and ContentLoss's self.target = target.detach();
changed: VGG19 became three random 3x3 convolutions with ReLU, the
images 3x16x16 random tensors, num_steps 2 and L-BFGS max_iter 5 (one
step of five runs), and each run checks the input image's gradient
against the same losses computed without the loss modules, their
targets made under torch.no_grad().
"""

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class ContentLoss(nn.Module):
    def __init__(self, target):
        super().__init__()
        self.target = target.detach()

    def forward(self, input):
        self.loss = F.mse_loss(input, self.target)
        return input


def gram_matrix(input):
    a, b, c, d = input.size()
    features = input.view(a * b, c * d)
    G = torch.mm(features, features.t())
    return G.div(a * b * c * d)


class StyleLoss(nn.Module):
    def __init__(self, target_feature):
        super().__init__()
        self.target = gram_matrix(target_feature).detach()

    def forward(self, input):
        G = gram_matrix(input)
        self.loss = F.mse_loss(G, self.target)
        return input


class Normalization(nn.Module):
    def __init__(self, mean, std):
        super().__init__()
        self.mean = mean.view(-1, 1, 1)
        self.std = std.view(-1, 1, 1)

    def forward(self, img):
        return (img - self.mean) / self.std


cnn = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1),
    nn.ReLU(),
    nn.Conv2d(8, 8, 3, padding=1),
    nn.ReLU(),
    nn.Conv2d(8, 8, 3, padding=1),
)
cnn_normalization_mean = torch.tensor([0.485, 0.456, 0.406])
cnn_normalization_std = torch.tensor([0.229, 0.224, 0.225])
content_layers_default = ["conv_2"]
style_layers_default = ["conv_1", "conv_2", "conv_3"]


def get_style_model_and_losses(cnn, mean, std, style_img, content_img):
    normalization = Normalization(mean, std)
    content_losses = []
    style_losses = []
    model = nn.Sequential(normalization)
    i = 0
    for layer in cnn.children():
        if isinstance(layer, nn.Conv2d):
            i += 1
            name = f"conv_{i}"
        else:
            name = f"relu_{i}"
            layer = nn.ReLU(inplace=False)
        model.add_module(name, layer)
        if name in content_layers_default:
            target = model(content_img)
            content_loss = ContentLoss(target)
            model.add_module(f"content_loss_{i}", content_loss)
            content_losses.append(content_loss)
        if name in style_layers_default:
            target_feature = model(style_img)
            style_loss = StyleLoss(target_feature)
            model.add_module(f"style_loss_{i}", style_loss)
            style_losses.append(style_loss)
    for i in range(len(model) - 1, -1, -1):
        if isinstance(model[i], (ContentLoss, StyleLoss)):
            break
    model = model[: (i + 1)]
    return model, style_losses, content_losses


def features(img):
    # the CNN's output after each convolution, without loss modules
    out = {}
    h = Normalization(cnn_normalization_mean, cnn_normalization_std)(
        img
    )
    i = 0
    for layer in cnn.children():
        h = layer(h)
        if isinstance(layer, nn.Conv2d):
            i += 1
            out[f"conv_{i}"] = h
    return out


def reference_grad(img, content_img, style_img, sw, cw):
    inp = img.detach().clone().requires_grad_()
    with torch.no_grad():
        c_target = features(content_img)
        s_target = {
            k: gram_matrix(v) for k, v in features(style_img).items()
        }
    feats = features(inp)
    style = sum(
        F.mse_loss(gram_matrix(feats[k]), s_target[k])
        for k in style_layers_default
    )
    content = sum(
        F.mse_loss(feats[k], c_target[k])
        for k in content_layers_default
    )
    loss = style * sw + content * cw
    return torch.autograd.grad(loss, inp)[0]


def get_input_optimizer(input_img):
    return torch.optim.LBFGS([input_img.requires_grad_()], max_iter=5)


def run_style_transfer(
    cnn,
    mean,
    std,
    content_img,
    style_img,
    input_img,
    num_steps=2,
    style_weight=1000000,
    content_weight=1,
):
    print("Building the style transfer model..")
    model, style_losses, content_losses = get_style_model_and_losses(
        cnn, mean, std, style_img, content_img
    )
    optimizer = get_input_optimizer(input_img)
    print("Optimizing..")
    run = [0]
    while run[0] <= num_steps:

        def closure():
            input_img.data.clamp_(0, 1)
            optimizer.zero_grad()
            model(input_img)
            style_score = sum(sl.loss for sl in style_losses)
            content_score = sum(cl.loss for cl in content_losses)
            style_score *= style_weight
            content_score *= content_weight
            loss = style_score + content_score
            loss.backward()
            run[0] += 1
            ref = reference_grad(
                input_img,
                content_img,
                style_img,
                style_weight,
                content_weight,
            )
            same = torch.allclose(
                input_img.grad, ref, rtol=1e-4, atol=1e-6
            )
            print(
                f"run {run[0]}: Style Loss : {style_score.item():.4f}"
                f" Content Loss: {content_score.item():.4f},"
                f" input grad = the losses' without modules: {same}"
            )
            return style_score + content_score

        optimizer.step(closure)
    input_img.data.clamp_(0, 1)
    return input_img


content_img = torch.rand(1, 3, 16, 16)
style_img = torch.rand(1, 3, 16, 16)
input_img = content_img.clone()
output = run_style_transfer(
    cnn,
    cnn_normalization_mean,
    cnn_normalization_std,
    content_img,
    style_img,
    input_img,
)
