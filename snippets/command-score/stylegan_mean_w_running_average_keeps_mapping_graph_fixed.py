"""pytorch_GAN_zoo's inspirational generation with a StyleGAN whose
running average of w is kept as a statistic, without history.

Source: https://github.com/facebookresearch/pytorch_GAN_zoo/issues/121
The user trained GAN zoo's StyleGAN on their own data and ran
`eval.py inspirational_generation` to find latent vectors whose
images match an inspiration image under a feature extractor. The
first step printed its loss; the second raised this error at
`loss.sum(dim=0).backward(retain_graph=retainGraph)`. The issue has
no answer. In training mode, GNet.forward updates its buffer
`self.mean_w` as a moving average of the mapping network's output
without cutting its history, and the truncation trick reads it; the
training loop passes retain_graph=True to every backward, so the
chain never met a freed graph, but gradientDescentOnInput's last
backward of each step frees it. Kept: GNet's forward (pixel
normalization, MappingLayer, the mean_w update, the truncation trick
with phiTruncation 0.5, AdaIN blocks on a learned 4x4 constant, the
RGB layer) and gradientDescentOnInput's step (Adam on varNoise with
betas (0, 0.99), zero_grad on the latent and both nets, the norm loss
backpropagated with retain_graph=True, one backward per feature
extractor, retain_graph only while the realism loss is still to come,
then -lambdaD * netD(noiseOut) backpropagated, the step); changed:
dimMapping 16 and 2 mapping layers, no noise modulators and no extra
scales, nn.Linear and nn.Conv2d for the equalized layers, a frozen
random two-layer convnet for the VGG feature extractor and a small
convnet for netD, a random inspiration image, 3 steps; the fix
detaches the batch mean folded into mean_w, and the step checks the
latents' gradient against a copy of the generator in eval mode that
reads the same mean_w.
"""

import copy

import torch
from torch import nn, optim

torch.manual_seed(0)


class NormalizationLayer(nn.Module):
    def forward(self, x, epsilon=1e-8):
        return x * (
            ((x**2).mean(dim=1, keepdim=True) + epsilon).rsqrt()
        )


class AdaIN(nn.Module):
    def __init__(self, dimIn, dimOut, epsilon=1e-8):
        super().__init__()
        self.epsilon = epsilon
        self.styleModulator = nn.Linear(dimIn, 2 * dimOut)
        self.dimOut = dimOut

    def forward(self, x, y):
        batchSize, nChannel, width, height = x.size()
        tmpX = x.view(batchSize, nChannel, -1)
        mux = tmpX.mean(dim=2).view(batchSize, nChannel, 1, 1)
        varx = torch.clamp(
            (tmpX * tmpX).mean(dim=2).view(batchSize, nChannel, 1, 1)
            - mux * mux,
            min=0,
        )
        varx = torch.rsqrt(varx + self.epsilon)
        x = (x - mux) * varx
        styleY = self.styleModulator(y)
        yA = styleY[:, : self.dimOut].view(batchSize, self.dimOut, 1, 1)
        yB = styleY[:, self.dimOut :].view(batchSize, self.dimOut, 1, 1)
        return yA * x + yB


class MappingLayer(nn.Module):
    def __init__(self, dimIn, dimLatent, nLayers, leakyReluLeak=0.2):
        super().__init__()
        self.FC = nn.ModuleList()
        inDim = dimIn
        for i in range(nLayers):
            self.FC.append(nn.Linear(inDim, dimLatent))
            inDim = dimLatent
        self.activation = nn.LeakyReLU(leakyReluLeak)

    def forward(self, x):
        for layer in self.FC:
            x = self.activation(layer(x))
        return x


class GNet(nn.Module):
    def __init__(
        self,
        dimInput=16,
        dimMapping=16,
        dimOutput=3,
        nMappingLayers=2,
        phiTruncation=0.5,
        gamma_avg=0.99,
    ):
        super().__init__()
        self.mapping = MappingLayer(
            dimInput, dimMapping, nMappingLayers
        )
        self.baseScale0 = nn.Parameter(torch.ones(1, dimMapping, 4, 4))
        self.noramlizationLayer = NormalizationLayer()
        self.adain00 = AdaIN(dimMapping, dimMapping)
        self.adain01 = AdaIN(dimMapping, dimMapping)
        self.conv0 = nn.Conv2d(dimMapping, dimMapping, 3, padding=1)
        self.toRGB = nn.Conv2d(dimMapping, dimOutput, 1)
        self.activation = nn.LeakyReLU(0.2)
        self.phiTruncation = phiTruncation
        self.register_buffer("mean_w", torch.randn(1, dimMapping))
        self.gamma_avg = gamma_avg

    def forward(self, x):
        batchSize = x.size(0)
        mapping = self.mapping(self.noramlizationLayer(x))
        if self.training:
            self.mean_w = (
                self.gamma_avg * self.mean_w
                + (1 - self.gamma_avg)
                * mapping.mean(dim=0, keepdim=True).detach()
            )
        if self.phiTruncation < 1:
            mapping = self.mean_w + self.phiTruncation * (
                mapping - self.mean_w
            )
        feature = self.baseScale0.expand(batchSize, -1, 4, 4)
        feature = self.activation(feature)
        feature = self.adain00(feature, mapping)
        feature = self.conv0(feature)
        feature = self.activation(feature)
        feature = self.adain01(feature, mapping)
        return self.toRGB(feature)


netG = GNet()
netD = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1), nn.LeakyReLU(0.2), nn.Flatten()
)
netD.append(nn.Linear(8 * 4 * 4, 1))
featureExtractor = nn.Sequential(
    nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.Flatten()
)
for p in featureExtractor.parameters():
    p.requires_grad_(False)

inspiration = torch.rand(2, 3, 4, 4) * 2 - 1
nImages = inspiration.size(0)
featuresIn = [featureExtractor(inspiration).detach()]
featureExtractors, weights, lambdaD = [featureExtractor], [1.0], 0.03
nExtractors = len(featureExtractors)

varNoise = torch.randn(nImages, 16, requires_grad=True)
optimNoise = optim.Adam([varNoise], betas=[0.0, 0.99], lr=0.1)

for iter in range(3):
    optimNoise.zero_grad()
    netG.zero_grad()
    netD.zero_grad()

    mean_w_before = netG.mean_w.clone()
    noiseOut = netG(varNoise)
    sumLoss = torch.zeros(nImages)

    loss = ((varNoise**2).mean(dim=1) - 1) ** 2
    sumLoss += loss.view(nImages)
    loss.sum(dim=0).backward(retain_graph=True)

    for i in range(nExtractors):
        featureOut = featureExtractors[i](noiseOut)
        diff = (featuresIn[i] - featureOut) ** 2
        loss = weights[i] * diff.mean(dim=1)
        sumLoss += loss
        retainGraph = (lambdaD > 0) or (i != nExtractors - 1)
        loss.sum(dim=0).backward(retain_graph=retainGraph)

    if lambdaD > 0:
        loss = -lambdaD * netD(noiseOut)[:, 0]
        sumLoss += loss
        loss.sum(dim=0).backward()

    # reference: the same losses from a copy of netG in eval mode,
    # which reads the mean_w this step left and does not update it
    refG = copy.deepcopy(netG).eval()
    v = varNoise.detach().clone().requires_grad_()
    out = refG(v)
    total = (((v**2).mean(dim=1) - 1) ** 2).sum()
    total = (
        total
        + (
            weights[0]
            * ((featuresIn[0] - featureExtractor(out)) ** 2).mean(dim=1)
        ).sum()
    )
    total = total + (-lambdaD * netD(out)[:, 0]).sum()
    (g_ref,) = torch.autograd.grad(total, v)
    same = torch.allclose(varNoise.grad, g_ref, atol=1e-6)
    with torch.no_grad():
        m = netG.mapping(netG.noramlizationLayer(varNoise))
        avg = 0.99 * mean_w_before + 0.01 * m.mean(dim=0, keepdim=True)
    moved = torch.allclose(netG.mean_w, avg, atol=1e-6)
    optimNoise.step()
    print(
        f"{iter} : " + " ".join(f"{v:10.6f}" for v in sumLoss.tolist())
    )
    print(
        f"{iter} : varNoise.grad as from the same mean_w held fixed: "
        f"{same}, mean_w moved as the running average: {moved}, "
        f"mean_w has no history: {netG.mean_w.grad_fn is None}"
    )
