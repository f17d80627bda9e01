# https://github.com/MooreThreads/Moore-AnimateAnyone/issues/92
"""The fix for accelerate_backward_twice.py: clear the reference banks
after every micro-step, not only when accelerator.sync_gradients. Each
forward then attends only to the features its own reference pass wrote,
and each accelerator.backward(loss) runs through its own micro-step's
graph; gradients still accumulate over gradient_accumulation_steps=2.
Proof: the loss and the accumulated gradient norm at each micro-step.

The buggy program (the pattern of Moore-AnimateAnyone's
train_stage_1.py): a reference network writes its features into a bank
on the denoising network's attention blocks (ReferenceAttentionControl),
and the banks are cleared only `if accelerator.sync_gradients:`. With
gradient_accumulation_steps > 1 the second micro-step's forward still
reads the first micro-step's features, whose graph the first
accelerator.backward(loss) freed: RuntimeError in accelerator.backward.

Threads: issues #92, #104 and #122 of that repository (error with
gradient_accumulation_steps > 1); #80 (the same error with
gradient_checkpointing).
"""

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
        accelerator.backward(loss)
        norm = torch.stack(
            [p.grad.norm() for p in net.parameters()]
        ).norm()
        print(
            f"micro-step {step}: loss {loss.item():.3f}  "
            f"sync {accelerator.sync_gradients}  "
            f"accumulated grad norm {norm.item():.3f}"
        )
        optimizer.step()
        optimizer.zero_grad()
    # the fix: every micro-step, not only at a sync step
    net.bank.clear()
    if step == 2:
        break
