# A glyph generator in the style of AGIS-Net: one content encoder, a
# shape decoder (grey glyph) and a texture decoder (colored glyph),
# each with its own L1 loss.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
enc = nn.Sequential(nn.Linear(64, 48), nn.ReLU())
shape_dec = nn.Linear(48, 64)
texture_dec = nn.Linear(48 + 64, 3 * 64)
params = [
    *enc.parameters(),
    *shape_dec.parameters(),
    *texture_dec.parameters(),
]
opt = torch.optim.SGD(params, lr=0.05)
lam = 0.5
content = torch.rand(5, 16, 64)
grey = content.roll(1, -1)
color = torch.rand(5, 16, 3 * 64)


def rel(a, b):
    a = torch.cat([t.flatten() for t in a])
    b = torch.cat([t.flatten() for t in b])
    return ((a - b).norm() / b.norm()).item()


for step in range(5):
    z = enc(content[step])
    fake_grey = shape_dec(z)
    fake_color = texture_dec(torch.cat([z, fake_grey], -1))
    loss_1 = F.l1_loss(fake_grey, grey[step])
    loss_2 = F.l1_loss(fake_color, color[step])
    loss_G = loss_1 + lam * loss_2
    want = torch.autograd.grad(loss_G, params, retain_graph=True)
    opt.zero_grad()
    # the two terms' backwards share the encoder's graph, so the
    # first keeps it; each term is backpropagated once
    loss_1.backward(retain_graph=True)
    (lam * loss_2).backward()
    d_all = rel([p.grad for p in params], want)
    d_shape = rel([shape_dec.weight.grad], want[2:3])
    d_texture = rel([texture_dec.weight.grad], want[4:5])
    print(
        f"step {step}: loss_G {loss_G.item():.4f}; grad vs one "
        f"backward of loss_G: all {d_all:.3f}, shape_dec.weight "
        f"{d_shape:.3f}, texture_dec.weight {d_texture:.3f}"
    )
    opt.step()
