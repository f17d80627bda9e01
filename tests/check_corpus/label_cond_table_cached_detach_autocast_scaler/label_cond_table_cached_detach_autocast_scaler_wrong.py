# A label-conditioned decoder under bf16 autocast (GradScaler, off on
# CPU): label_enc embeds each class's description; the decoder maps
# noise and the label's embedding to a sample, and label_enc also
# trains through a term that matches images to their class. The
# decoder's condition table was encoded once before the loop; step 1
# raised the backward-twice error, and .detach() made it run.
import torch
from torch import nn

torch.manual_seed(0)
label_enc = nn.Sequential(nn.Linear(10, 32), nn.GELU(),
                          nn.Linear(32, 16))
image_enc = nn.Linear(12, 16)
decoder = nn.Sequential(nn.Linear(16 + 4, 32), nn.GELU(),
                        nn.Linear(32, 12))
params = [*label_enc.parameters(), *image_enc.parameters(),
          *decoder.parameters()]
optimizer = torch.optim.AdamW(params, lr=2e-2)
scaler = torch.amp.GradScaler("cpu", enabled=False)
descs = torch.randn(5, 10)
protos = torch.randn(5, 12)
y = torch.randint(5, (6, 32))
x = protos[y] + 0.3 * torch.randn(6, 32, 12)
noise = torch.randn(6, 32, 4)
with torch.autocast("cpu", dtype=torch.bfloat16):
    cond = label_enc(descs).detach()
for step in range(6):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        table = label_enc(descs)
        recon = decoder(torch.cat([cond[y[step]], noise[step]], 1))
        match = image_enc(x[step]) @ table.T
    loss = (nn.functional.mse_loss(recon.float(), x[step])
            + nn.functional.cross_entropy(match.float(), y[step]))
    used = cond.float()
    rel = ((used - table.float()).norm() / table.float().norm()).item()
    optimizer.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(optimizer)
    scaler.update()
    print(f"step {step}: loss {loss.item():.4f}, condition table used "
          f"vs label_enc now (relative) {rel:.3f}")
