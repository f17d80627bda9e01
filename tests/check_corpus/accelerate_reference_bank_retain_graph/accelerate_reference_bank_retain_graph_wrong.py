# The pattern of Moore-AnimateAnyone's train_stage_1.py on real
# accelerate: a reference network writes its features into a bank on
# the denoiser's attention blocks; gradient accumulation over 2
# micro-steps.
import torch
from accelerate import Accelerator

torch.manual_seed(0)


class Reference(torch.nn.Module):  # writes its features into the bank
    def __init__(self, bank):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)
        self.bank = bank

    def forward(self, ref):
        self.bank.append(self.proj(ref))


class Denoiser(torch.nn.Module):  # attends to everything in the bank
    def __init__(self, bank):
        super().__init__()
        self.inp = torch.nn.Linear(4, 4)
        self.out = torch.nn.Linear(4, 4)
        self.bank = bank

    def forward(self, x):
        h = self.inp(x)
        keys = torch.cat([h] + list(self.bank), dim=0)
        attn = torch.softmax(h @ keys.T, dim=-1)
        return self.out(attn @ keys)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.bank = []
        self.reference = Reference(self.bank)
        self.denoiser = Denoiser(self.bank)

    def forward(self, noisy, ref):
        self.reference(ref)
        return self.denoiser(noisy)


accelerator = Accelerator(cpu=True, gradient_accumulation_steps=2)
net = Net()
optimizer = torch.optim.AdamW(net.parameters(), lr=1e-3)
noise = torch.randn(8, 4)
data = torch.utils.data.TensorDataset(
    noise + torch.randn(8, 4), noise, torch.randn(8, 4)
)
loader = torch.utils.data.DataLoader(data, batch_size=2)
net, optimizer, loader = accelerator.prepare(net, optimizer, loader)

for step, (noisy, target, ref) in enumerate(loader):
    with accelerator.accumulate(net):
        pred = net(noisy, ref)
        loss = torch.nn.functional.mse_loss(pred, target)
        accelerator.backward(loss, retain_graph=True)
        optimizer.step()
        optimizer.zero_grad()
    if accelerator.sync_gradients:
        net.bank.clear()
print(f"last loss {loss.item():.3f}")
