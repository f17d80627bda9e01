"""Source: https://github.com/lucidrains/denoising-diffusion-pytorch/issues/109

Library: accelerate 1.16.0, run unmodified. denoising-diffusion-pytorch
is not in the gallery, so its Trainer1D loop (Accelerator, a prepared
DataLoader, gradient_accumulate_every micro-steps, accelerator.autocast,
accelerator.backward) and GaussianDiffusion's noise loss are reduced to
their lines here. What the user wanted: train the diffusion model on
their 1-D series, after a Conv1d outside the training loop gave the
series the channels the network expects.
"""

import torch
from accelerate import Accelerator

torch.manual_seed(0)


class Dataset1D(torch.utils.data.Dataset):  # the library's own
    def __init__(self, tensor):
        super().__init__()
        self.tensor = tensor.clone()

    def __len__(self):
        return len(self.tensor)

    def __getitem__(self, idx):
        return self.tensor[idx].clone()


class Diffusion(torch.nn.Module):  # GaussianDiffusion.p_losses, reduced
    def __init__(self):
        super().__init__()
        self.net = torch.nn.Conv1d(4, 4, kernel_size=3, padding=1)
        self.alphas = torch.linspace(0.99, 0.5, 10)

    def forward(self, x_start):
        x_start = x_start * 2 - 1  # normalize_to_neg_one_to_one
        t = torch.randint(0, 10, (x_start.shape[0],))
        a = self.alphas[t][:, None, None]
        noise = torch.randn_like(x_start)
        x = a.sqrt() * x_start + (1 - a).sqrt() * noise
        return torch.nn.functional.mse_loss(self.net(x), noise)


# the user's conversion, once, outside the training loop
raw = torch.rand(16, 1, 8)
to_channels = torch.nn.Conv1d(1, 4, kernel_size=1)
training_seq = to_channels(raw)

accelerator = Accelerator(cpu=True)
loader = torch.utils.data.DataLoader(
    Dataset1D(training_seq), batch_size=4, shuffle=False
)
diffusion = Diffusion()
opt = torch.optim.Adam(diffusion.parameters(), lr=1e-3)
diffusion, opt, loader = accelerator.prepare(diffusion, opt, loader)
batches = iter(loader)
gradient_accumulate_every = 2

for step in range(2):  # Trainer1D.train()
    total_loss = 0.0
    for _ in range(gradient_accumulate_every):
        data = next(batches)
        with accelerator.autocast():
            loss = diffusion(data)
            loss = loss / gradient_accumulate_every
            total_loss += loss.item()
        accelerator.backward(loss)
        print(f"step {step}: micro-step loss {loss.item():.3f}")
    accelerator.clip_grad_norm_(diffusion.parameters(), 1.0)
    opt.step()
    opt.zero_grad()
