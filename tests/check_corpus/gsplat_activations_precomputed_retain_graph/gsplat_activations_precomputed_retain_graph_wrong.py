# Reduced from a Gaussian-splatting optimisation loop (github.com/nerfstudio-project/gsplat/issues/710)
# whose activated scales/opacities were computed once before the loop. Wrong fix: retain_graph=True.
import torch

torch.manual_seed(0)
N, H = 12, 16
ys, xs = torch.meshgrid(torch.linspace(0, 1, H), torch.linspace(0, 1, H), indexing="ij")
grid = torch.stack([xs, ys], -1)

def render(means, scales, opacities, colors):
    d2 = ((grid[None] - means[:, None, None, :]) ** 2).sum(-1)
    w = opacities[:, None, None] * torch.exp(-0.5 * d2 / scales[:, None, None] ** 2)
    return (w * colors[:, None, None]).sum(0)

with torch.no_grad():
    target = render(torch.rand(N, 2), 0.05 + 0.1 * torch.rand(N), torch.rand(N), torch.rand(N))

gaussians = {
    "means": torch.rand(N, 2).requires_grad_(),
    "scales": torch.full((N,), -2.0).requires_grad_(),
    "opacities": torch.zeros(N).requires_grad_(),
    "colors": torch.rand(N).requires_grad_(),
}
opt = torch.optim.Adam(gaussians.values(), lr=0.02)
scales = torch.exp(gaussians["scales"])
opacities = torch.sigmoid(gaussians["opacities"])

for it in range(300):
    opt.zero_grad()
    img = render(gaussians["means"], scales, opacities, gaussians["colors"])
    loss = (img - target).pow(2).mean()
    loss = loss + 0.001 * opacities.mean() + 0.001 * scales.mean()
    loss.backward(retain_graph=True)
    opt.step()
print(f"final loss {loss.item():.5f}")
