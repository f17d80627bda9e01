# A GAN with the GDPP loss (facebookresearch/pytorch_GAN_zoo,
# models/base_GAN.py optimizeParameters and
# models/loss_criterions/GDPP_loss.py): after the generator's GAN loss
# is backpropagated, the GDPP loss, which compares the eigen-structure
# of the discriminator's last features on fake and real data, runs its
# own backward. Reduced: MLPs on vectors, the DCGAN criterion.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
N, LAT, DIM, FEAT = 8, 6, 16, 16


class NetD(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(DIM, FEAT), nn.LeakyReLU(0.2))
        self.out = nn.Linear(FEAT, 1)

    def forward(self, x, getFeature=False):
        phi = self.features(x)
        pred = self.out(phi)
        return (pred, phi) if getFeature else pred


def criterion(pred, status):
    target = torch.ones_like(pred) if status else torch.zeros_like(pred)
    return F.binary_cross_entropy_with_logits(pred, target)


def GDPPLoss(phiFake, phiReal, backward=True):
    def compute_diversity(phi):
        phi = F.normalize(phi, p=2, dim=1)
        SB = torch.mm(phi, phi.t())
        return torch.linalg.eigh(SB)

    def normalize_min_max(eigVals):
        minV, maxV = torch.min(eigVals), torch.max(eigVals)
        if abs(minV - maxV) < 1e-10:
            return eigVals
        return (eigVals - minV) / (maxV - minV)

    fakeEigVals, fakeEigVecs = compute_diversity(phiFake)
    realEigVals, realEigVecs = compute_diversity(phiReal)
    magnitudeLoss = 0.0001 * F.mse_loss(target=realEigVals, input=fakeEigVals)
    structureLoss = -torch.sum(torch.mul(fakeEigVecs, realEigVecs), 0)
    normalizedRealEigVals = normalize_min_max(realEigVals)
    weightedStructureLoss = torch.sum(
        torch.mul(normalizedRealEigVals, structureLoss))
    gdppLoss = magnitudeLoss + weightedStructureLoss
    if backward:
        gdppLoss.backward(retain_graph=True)
    return gdppLoss


netG = nn.Sequential(nn.Linear(LAT, 32), nn.ReLU(), nn.Linear(32, DIM))
netD = NetD()
optimizerD = torch.optim.Adam(netD.parameters(), lr=1e-3, betas=(0.0, 0.99))
optimizerG = torch.optim.Adam(netG.parameters(), lr=1e-3, betas=(0.0, 0.99))
reals = torch.randn(4, N, DIM) * torch.linspace(0.2, 2.0, DIM)


def reaches(losses, params):
    # do these losses' graphs lead to any of params? (walks grad_fn)
    ids, seen, todo = {id(p) for p in params}, set(), [lo.grad_fn for lo in losses]
    while todo:
        fn = todo.pop()
        if fn is None or fn in seen:
            continue
        seen.add(fn)
        if id(getattr(fn, "variable", None)) in ids:
            return True
        todo.extend(f for f, _ in fn.next_functions)
    return False


for step in range(4):
    real_input = reals[step]
    # update the discriminator
    optimizerD.zero_grad()
    predRealD = netD(real_input, False)
    lossD = criterion(predRealD, True)
    predFakeG = netG(torch.randn(N, LAT)).detach()
    predFakeD = netD(predFakeG, False)
    lossD = lossD + criterion(predFakeD, False)
    lossD.backward(retain_graph=True)
    optimizerD.step()

    # update the generator
    optimizerG.zero_grad()
    optimizerD.zero_grad()
    predFakeG = netG(torch.randn(N, LAT))
    predFakeD, phiGFake = netD(predFakeG, True)
    lossGFake = criterion(predFakeD, True)
    lossGFake.backward()
    # GDPP's backward asked to backward through the graph a second
    # time (lossGFake's backward had freed netD's graph on the fake);
    # the answer: detach the fake features
    _, phiDReal = netD(real_input, True)
    d_before = [p.grad.clone() for p in netD.features.parameters()]
    gdpp = GDPPLoss(phiGFake.detach(), phiDReal, backward=True)
    reach = reaches([gdpp], netG.parameters())
    d_written = any(not torch.equal(b, p.grad)
                    for b, p in zip(d_before, netD.features.parameters()))
    finite = all(bool(p.grad.isfinite().all()) for p in netG.parameters())
    optimizerG.step()
    print(f"step {step}: the GDPP loss reaches netG: {reach}; it wrote "
          f"grads into netD's features: {d_written} (the next "
          f"optimizerD.zero_grad() clears them); netG's grads finite: {finite}")
