"""EdgeConnect's joint model (MODEL=4): the inpainting model's backward
frees the edge generator's graph before the edge model's backward.

Source: https://github.com/knazeri/edge-connect/issues/40 (and #30).
The user trained the joint model, the mode the paper's results came
from: the edge generator G1 draws the missing edges, the inpainting
generator G2 fills the image from them, and G1 is trained by its own
losses and, through the edges it drew, by G2's loss. The traceback
ends at gen_loss.backward() in EdgeModel.backward. Both backward()
methods run the generator first, as in issue #152: today's PyTorch
rejects the repository's order (the discriminator stepped before the
generator's loss is backpropagated through it) with the in-place
error, in every mode.
"""

import torch
from torch import nn

torch.manual_seed(0)

LR, D2G_LR, BETA1, BETA2 = 1e-4, 0.1, 0.0, 0.9
L1_LOSS_WEIGHT, FM_LOSS_WEIGHT, INPAINT_ADV_LOSS_WEIGHT = 1, 10, 0.1


class EdgeGenerator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(3, 8, 3, padding=1),
            nn.ReLU(True),
            nn.Conv2d(8, 1, 3, padding=1),
        )

    def forward(self, x):
        return torch.sigmoid(self.net(x))


class InpaintGenerator(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Conv2d(4, 8, 3, padding=1),
            nn.ReLU(True),
            nn.Conv2d(8, 3, 3, padding=1),
        )

    def forward(self, x):
        return (torch.tanh(self.net(x)) + 1) / 2


class Discriminator(nn.Module):
    def __init__(self, in_channels):
        super().__init__()
        self.conv1 = nn.Sequential(
            nn.Conv2d(in_channels, 8, 4, 2, 1),
            nn.LeakyReLU(0.2, inplace=True),
        )
        self.conv2 = nn.Sequential(
            nn.Conv2d(8, 16, 4, 2, 1), nn.LeakyReLU(0.2, inplace=True)
        )
        self.conv3 = nn.Conv2d(16, 1, 3, 1, 1)

    def forward(self, x):
        conv1 = self.conv1(x)
        conv2 = self.conv2(conv1)
        conv3 = self.conv3(conv2)
        return torch.sigmoid(conv3), [conv1, conv2, conv3]


class AdversarialLoss(nn.Module):  # type='nsgan'
    def __init__(self):
        super().__init__()
        self.criterion = nn.BCELoss()

    def __call__(self, outputs, is_real, is_disc=None):
        labels = torch.full_like(outputs, 1.0 if is_real else 0.0)
        return self.criterion(outputs, labels)


class EdgeModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.generator = EdgeGenerator()
        self.discriminator = Discriminator(in_channels=2)
        self.l1_loss = nn.L1Loss()
        self.adversarial_loss = AdversarialLoss()
        self.gen_optimizer = torch.optim.Adam(
            self.generator.parameters(), lr=LR, betas=(BETA1, BETA2)
        )
        self.dis_optimizer = torch.optim.Adam(
            self.discriminator.parameters(),
            lr=LR * D2G_LR,
            betas=(BETA1, BETA2),
        )

    def process(self, images, edges, masks):
        self.gen_optimizer.zero_grad()
        self.dis_optimizer.zero_grad()
        outputs = self(images, edges, masks)
        dis_input_real = torch.cat((images, edges), dim=1)
        dis_input_fake = torch.cat((images, outputs.detach()), dim=1)
        dis_real, dis_real_feat = self.discriminator(dis_input_real)
        dis_fake, dis_fake_feat = self.discriminator(dis_input_fake)
        dis_real_loss = self.adversarial_loss(dis_real, True, True)
        dis_fake_loss = self.adversarial_loss(dis_fake, False, True)
        dis_loss = (dis_real_loss + dis_fake_loss) / 2
        gen_input_fake = torch.cat((images, outputs), dim=1)
        gen_fake, gen_fake_feat = self.discriminator(gen_input_fake)
        gen_loss = self.adversarial_loss(gen_fake, True, False)
        gen_fm_loss = 0
        for i in range(len(dis_real_feat)):
            gen_fm_loss += self.l1_loss(
                gen_fake_feat[i], dis_real_feat[i].detach()
            )
        gen_loss = gen_loss + gen_fm_loss * FM_LOSS_WEIGHT
        logs = [("l_d1", dis_loss.item()), ("l_g1", gen_loss.item())]
        return outputs, gen_loss, dis_loss, logs

    def forward(self, images, edges, masks):
        edges_masked = edges * (1 - masks)
        images_masked = (images * (1 - masks)) + masks
        inputs = torch.cat((images_masked, edges_masked, masks), dim=1)
        return self.generator(inputs)

    def backward(self, gen_loss=None, dis_loss=None):
        gen_loss.backward()  # line 152 in the issue's traceback
        self.gen_optimizer.step()
        self.dis_optimizer.zero_grad()
        dis_loss.backward()
        self.dis_optimizer.step()


class InpaintingModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.generator = InpaintGenerator()
        self.discriminator = Discriminator(in_channels=3)
        self.l1_loss = nn.L1Loss()
        self.adversarial_loss = AdversarialLoss()
        self.gen_optimizer = torch.optim.Adam(
            self.generator.parameters(), lr=LR, betas=(BETA1, BETA2)
        )
        self.dis_optimizer = torch.optim.Adam(
            self.discriminator.parameters(),
            lr=LR * D2G_LR,
            betas=(BETA1, BETA2),
        )

    def process(self, images, edges, masks):
        self.gen_optimizer.zero_grad()
        self.dis_optimizer.zero_grad()
        outputs = self(images, edges, masks)
        dis_real, _ = self.discriminator(images)
        dis_fake, _ = self.discriminator(outputs.detach())
        dis_real_loss = self.adversarial_loss(dis_real, True, True)
        dis_fake_loss = self.adversarial_loss(dis_fake, False, True)
        dis_loss = (dis_real_loss + dis_fake_loss) / 2
        gen_fake, _ = self.discriminator(outputs)
        gen_gan_loss = self.adversarial_loss(gen_fake, True, False)
        gen_loss = gen_gan_loss * INPAINT_ADV_LOSS_WEIGHT
        gen_l1_loss = self.l1_loss(outputs, images) * L1_LOSS_WEIGHT
        gen_loss = gen_loss + gen_l1_loss / torch.mean(masks)
        logs = [("l_d2", dis_loss.item()), ("l_g2", gen_loss.item())]
        return outputs, gen_loss, dis_loss, logs

    def forward(self, images, edges, masks):
        images_masked = (images * (1 - masks).float()) + masks
        inputs = torch.cat((images_masked, edges), dim=1)
        return self.generator(inputs)

    def backward(self, gen_loss=None, dis_loss=None):
        gen_loss.backward()
        self.gen_optimizer.step()
        self.dis_optimizer.zero_grad()
        dis_loss.backward()
        self.dis_optimizer.step()


edge_model, inpaint_model = EdgeModel(), InpaintingModel()
masks = torch.zeros(2, 1, 16, 16)
masks[0, :, 2:10, 3:11] = 1
masks[1, :, 6:14, 5:13] = 1

for iteration in range(1, 3):
    images = torch.rand(2, 3, 16, 16)
    images_gray = images.mean(dim=1, keepdim=True)
    edges = (torch.rand(2, 1, 16, 16) > 0.8).float()

    # joint model
    e_outputs, e_gen_loss, e_dis_loss, e_logs = edge_model.process(
        images_gray, edges, masks
    )
    e_outputs = e_outputs * masks + edges * (1 - masks)
    i_outputs, i_gen_loss, i_dis_loss, i_logs = inpaint_model.process(
        images, e_outputs, masks
    )
    logs = ", ".join(f"{k} {v:.4f}" for k, v in e_logs + i_logs)
    print(f"iteration {iteration}: {logs}")

    # backward
    inpaint_model.backward(i_gen_loss, i_dis_loss)
    edge_model.backward(e_gen_loss, e_dis_loss)
