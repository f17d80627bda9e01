# https://github.com/VinAIResearch/PSENet-Image-Enhancement/issues/1
# A faithful reduction of pytorch-lightning's automatic optimization
# (training_step in the optimizer closure, then
# LightningModule.backward, then optimizer.step) and of PSENet's
# framework.py training_step, with the user's added loss.backward().
import torch
from torch import nn

torch.manual_seed(0)


class TVLoss(nn.Module):
    def forward(self, x):
        x = torch.log(x + 1e-3)
        h_tv = torch.pow((x[:, :, 1:, :] - x[:, :, :-1, :]), 2)
        w_tv = torch.pow((x[:, :, :, 1:] - x[:, :, :, :-1]), 2)
        return torch.mean(h_tv) + torch.mean(w_tv)


class UnetTMO(nn.Module):
    def __init__(self):
        super().__init__()
        self.first_conv = nn.Conv2d(3, 4, 3, padding=1)
        self.last_conv = nn.Conv2d(4, 3, 3, padding=1)

    def forward(self, x):
        x_1 = torch.relu(self.first_conv(x))
        r = self.last_conv(x_1)
        r = torch.abs(r + 1)
        x = 1 - (1 - x) ** r
        return x, r


class IQA(nn.Module):
    # no trainable parameters: a per-pixel exposure score
    def forward(self, x):
        return -(x.mean(1, keepdim=True) - 0.5).abs()


class PSENet(nn.Module):  # LightningModule
    def __init__(self, tv_w, gamma_lower, gamma_upper, number_refs, lr):
        super().__init__()
        self.tv_w, self.gamma_lower, self.gamma_upper = (
            tv_w,
            gamma_lower,
            gamma_upper,
        )
        self.number_refs, self.lr = number_refs, lr
        self.model = UnetTMO()
        self.mse = nn.MSELoss()
        self.tv = TVLoss()
        self.iqa = IQA()
        self.saved_input = None
        self.saved_pseudo_gt = None

    def configure_optimizers(self):
        optimizer = torch.optim.Adam(
            self.model.parameters(), lr=self.lr, betas=[0.9, 0.99]
        )
        return {"optimizer": optimizer}

    def log(self, name, value):
        print(f"  {name}: {value.item():.3f}")

    def backward(
        self, loss, optimizer, optimizer_idx
    ):  # LightningModule.backward
        loss.backward()

    def generate_pseudo_gt(self, im):
        bs, ch, h, w = im.shape
        underexposed_ranges = torch.linspace(
            0, self.gamma_upper, steps=self.number_refs
        )
        underexposed_gamma = torch.exp(
            torch.rand([bs, self.number_refs])
            * underexposed_ranges[None, :]
        )
        overrexposed_ranges = torch.linspace(
            self.gamma_lower, 0, steps=self.number_refs
        )
        overrexposed_gamma = torch.exp(
            torch.rand([bs, self.number_refs])
            * overrexposed_ranges[None, :]
        )
        gammas = torch.cat(
            [underexposed_gamma, overrexposed_gamma], dim=1
        )
        synthetic_references = (
            1 - (1 - im[:, None]) ** gammas[:, :, None, None, None]
        )
        previous_iter_output = self.model(im)[0].clone().detach()
        references = torch.cat(
            [
                im[:, None],
                previous_iter_output[:, None],
                synthetic_references,
            ],
            dim=1,
        )
        nref = references.shape[1]
        scores = self.iqa(references.view(bs * nref, ch, h, w))
        scores = scores.view(bs, nref, 1, h, w)
        max_idx = torch.argmax(scores, dim=1)
        max_idx = max_idx.repeat(1, ch, 1, 1)[:, None]
        pseudo_gt = torch.gather(references, 1, max_idx)
        return pseudo_gt.squeeze(1)

    def training_step(self, batch, batch_idx):
        nth_input = batch
        nth_pseudo_gt = self.generate_pseudo_gt(batch)
        if self.saved_input is not None:
            im = self.saved_input
            pred_im, pred_gamma = self.model(im)
            pseudo_gt = self.saved_pseudo_gt
            reconstruction_loss = self.mse(pred_im, pseudo_gt)
            tv_loss = self.tv(pred_gamma)
            loss = reconstruction_loss + tv_loss * self.tv_w
            self.log("total_loss", loss)
        else:
            # skip updating model's weight at the first batch
            loss = None
        self.saved_input = nth_input
        self.saved_pseudo_gt = nth_pseudo_gt
        return loss


class Trainer:
    # pytorch_lightning automatic optimization, reduced
    def __init__(self, max_epochs):
        self.max_epochs = max_epochs

    def fit(self, model, train_dataloader):
        optimizer = model.configure_optimizers()["optimizer"]
        for epoch in range(self.max_epochs):
            for batch_idx, batch in enumerate(train_dataloader):
                print(f"epoch {epoch} batch {batch_idx}")

                # training_step_and_backward
                def closure(batch=batch, batch_idx=batch_idx):
                    loss = model.training_step(batch, batch_idx)
                    if loss is None:
                        return None
                    optimizer.zero_grad()
                    model.backward(loss, optimizer, 0)
                    return loss

                optimizer.step(closure)
                if batch_idx > 0 or epoch > 0:
                    grad_norm = torch.cat(
                        [
                            p.grad.flatten()
                            for p in model.model.parameters()
                        ]
                    ).norm()
                    print(f"  grad norm {grad_norm.item():.3f}")
        with torch.no_grad():
            pred_im, pred_gamma = model.model(model.saved_input)
            final_loss = (
                model.mse(pred_im, model.saved_pseudo_gt)
                + model.tv(pred_gamma) * model.tv_w
            ).item()
            print(
                f"loss on the last batch after training: "
                f"{final_loss:.3f}"
            )


train_dataloader = [torch.rand(2, 3, 6, 6) * 0.4 for _ in range(4)]
model = PSENet(
    tv_w=5, gamma_lower=-2, gamma_upper=3, number_refs=1, lr=0.01
)
trainer = Trainer(max_epochs=2)
trainer.fit(model, train_dataloader)
