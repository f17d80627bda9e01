"""pytorch_GAN_zoo's generator step with GDPP on: the GAN loss and
the GDPP loss backpropagated together, in one pass.

Source: https://github.com/facebookresearch/pytorch_GAN_zoo/issues/82
The user followed the README (`train.py ... --GDPP true`, a DCGAN
for the check) to add the GDPP diversity loss to the generator's
loss, and training stopped with this error. The same user's pull
request 85 ("fixed enable GDPP loss train", merged) sets
`lossGFake.backward(retain_graph=True)` in
BaseGAN.optimizeParameters. Kept: optimizeParameters as it was before
that pull request (the discriminator's step on real data and on the
detached fake batch; then optimizerG.zero_grad(), a new fake batch,
netD(predFakeG, True) giving the decision and the last feature layer
phiGFake, lossGFake.backward(), netD on the real batch for phiDReal,
GDPPLoss(phiDReal, phiGFake, backward=True), optimizerG.step()), the
DCGAN criterion (BCE on the sigmoid of the first output) and GDPPLoss
(eigen-decompositions of the normalized features' Gram matrices, the
magnitude and the weighted structure terms, its own backward with
retain_graph=True); changed: torch.linalg.eigh for the removed
torch.symeig, the decision column squeezed for BCE (which now refuses
the shape mismatch), two-layer MLPs on 8-d vectors for the DCGAN
nets, no DataParallel, no classification penalty, no finiteCheck, no
average generator, 2 iterations on random data; the fix sums the
two losses before one backward (GDPPLoss's body moved into gdpp_loss,
which returns the tensor) and checks the generator's gradient against
each loss's own.
"""

import torch
import torch.nn.functional as F
from torch import nn, optim

torch.manual_seed(0)


def gdpp_loss(phiFake, phiReal):
    def compute_diversity(phi):
        phi = F.normalize(phi, p=2, dim=1)
        SB = torch.mm(phi, phi.t())
        eigVals, eigVecs = torch.linalg.eigh(SB)
        return eigVals, eigVecs

    def normalize_min_max(eigVals):
        minV, maxV = torch.min(eigVals), torch.max(eigVals)
        return (eigVals - minV) / (maxV - minV)

    fakeEigVals, fakeEigVecs = compute_diversity(phiFake)
    realEigVals, realEigVecs = compute_diversity(phiReal)
    magnitudeLoss = 0.0001 * F.mse_loss(
        target=realEigVals, input=fakeEigVals
    )
    structureLoss = -torch.sum(torch.mul(fakeEigVecs, realEigVecs), 0)
    normalizedRealEigVals = normalize_min_max(realEigVals)
    weightedStructureLoss = torch.sum(
        torch.mul(normalizedRealEigVals, structureLoss)
    )
    return magnitudeLoss + weightedStructureLoss


def GDPPLoss(phiFake, phiReal, backward=True):
    gdppLoss = gdpp_loss(phiFake, phiReal)
    if backward:
        gdppLoss.backward(retain_graph=True)
    return gdppLoss.item()


class DCGANCriterion:
    def getCriterion(self, input, status):
        size = input.size()[0]
        reference = torch.tensor([float(status)]).expand(size)
        return F.binary_cross_entropy(
            torch.sigmoid(input[:, :1]).squeeze(1), reference
        )


class GNet(nn.Module):
    def __init__(self, dimLatent=4, dimOut=8):
        super().__init__()
        self.main = nn.Sequential(
            nn.Linear(dimLatent, 16), nn.ReLU(), nn.Linear(16, dimOut)
        )

    def forward(self, x):
        return torch.tanh(self.main(x))


class DNet(nn.Module):
    def __init__(self, dimIn=8):
        super().__init__()
        self.features = nn.Sequential(
            nn.Linear(dimIn, 16), nn.LeakyReLU()
        )
        self.decisionLayer = nn.Linear(16, 1)

    def forward(self, x, getFeature=False):
        phi = self.features(x)
        out = self.decisionLayer(phi)
        if getFeature:
            return out, phi
        return out


class BaseGAN:
    def __init__(self, GDPP=True):
        self.netG, self.netD = GNet(), DNet()
        self.optimizerG = optim.Adam(self.netG.parameters(), lr=1e-3)
        self.optimizerD = optim.Adam(self.netD.parameters(), lr=1e-3)
        self.lossCriterion = DCGANCriterion()
        self.GDPP = GDPP

    def buildNoiseData(self, n_samples):
        return torch.randn(n_samples, 4)

    def optimizeParameters(self, input_batch):
        allLosses = {}
        self.real_input = input_batch
        n_samples = self.real_input.size()[0]

        # Update the discriminator
        self.optimizerD.zero_grad()
        predRealD = self.netD(self.real_input, False)
        lossD = self.lossCriterion.getCriterion(predRealD, True)
        allLosses["lossD_real"] = lossD.item()
        inputLatent = self.buildNoiseData(n_samples)
        predFakeG = self.netG(inputLatent).detach()
        predFakeD = self.netD(predFakeG, False)
        lossDFake = self.lossCriterion.getCriterion(predFakeD, False)
        allLosses["lossD_fake"] = lossDFake.item()
        lossD += lossDFake
        lossD.backward()
        self.optimizerD.step()

        # Update the generator
        self.optimizerG.zero_grad()
        self.optimizerD.zero_grad()
        inputNoise = self.buildNoiseData(n_samples)
        predFakeG = self.netG(inputNoise)
        predFakeD, phiGFake = self.netD(predFakeG, True)
        lossGFake = self.lossCriterion.getCriterion(predFakeD, True)
        allLosses["lossG_fake"] = lossGFake.item()
        lossG = lossGFake

        if self.GDPP:
            _, phiDReal = self.netD.forward(self.real_input, True)
            lossGDPP = gdpp_loss(phiDReal, phiGFake)
            allLosses["lossG_GDPP"] = lossGDPP.item()
            lossG = lossG + lossGDPP

        # reference: each loss's own gradient on the generator
        params = list(self.netG.parameters())
        g_gan = torch.autograd.grad(
            lossGFake, params, retain_graph=True
        )
        g_gdpp = torch.autograd.grad(
            lossGDPP, params, retain_graph=True
        )
        lossG.backward()
        self.same = all(
            torch.allclose(p.grad, a + b, atol=1e-6)
            for p, a, b in zip(params, g_gan, g_gdpp)
        )
        self.both = any(a.abs().sum() > 0 for a in g_gan) and any(
            b.abs().sum() > 0 for b in g_gdpp
        )
        self.optimizerG.step()
        return allLosses


model = BaseGAN(GDPP=True)
data = [torch.rand(6, 8) * 2 - 1 for _ in range(2)]
for i, batch in enumerate(data):
    print(f"iter {i}: D step, then the generator's GAN loss")
    losses = model.optimizeParameters(batch)
    if i == 0:  # later losses differ between CPU kernels (eigh)
        print(
            f"iter {i}: "
            + ", ".join(f"{k} {v:.4f}" for k, v in losses.items())
        )
    print(
        f"iter {i}: G's .grad = GAN part + GDPP part: {model.same}, "
        f"both parts nonzero: {bool(model.both)}"
    )
