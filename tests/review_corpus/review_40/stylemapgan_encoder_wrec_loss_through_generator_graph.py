# Source: https://github.com/naver-ai/StyleMapGAN/issues/16
# Generator step of StyleMapGAN (reduced): model(None, "G") returns the generator's
# adversarial loss and the encoder's w-reconstruction loss from ONE forward.
# g_loss trains the generator (g_optim); w_rec_loss should train ONLY the encoder
# (e_optim): the encoder must map a generated image back to its stylecode.
# This version lacks the .detach() of fake_img / stylecode.
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
Z, S, IMG = 8, 16, 32
generator = nn.ModuleDict({"map": nn.Linear(Z, S), "synth": nn.Linear(S, IMG)})
discriminator = nn.Sequential(nn.Linear(IMG, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
encoder = nn.Sequential(nn.Linear(IMG, 32), nn.ReLU(), nn.Linear(32, S))
g_optim = torch.optim.Adam(generator.parameters(), lr=2e-3)
e_optim = torch.optim.Adam(encoder.parameters(), lr=2e-3)


def model_G(batch=16):
    z = torch.randn(batch, Z)
    stylecode = torch.tanh(generator["map"](z))
    fake_img = torch.tanh(generator["synth"](stylecode))
    adv_loss = F.softplus(-discriminator(fake_img)).mean()  # g_nonsaturating_loss
    fake_stylecode = encoder(fake_img)  # (upstream: fake_img.detach())
    w_rec_loss = F.mse_loss(stylecode, fake_stylecode)  # (upstream: stylecode.detach())
    return adv_loss, w_rec_loss, stylecode


for i in range(5):
    adv_loss, w_rec_loss, stylecode = model_G()
    g_loss = adv_loss * 1.0
    g_optim.zero_grad()
    g_loss.backward()
    g_optim.step()

    e_optim.zero_grad()
    (w_rec_loss * 1.0).backward()  # RuntimeError: generator graph already freed
    e_optim.step()
    print(i, g_loss.item(), w_rec_loss.item())
