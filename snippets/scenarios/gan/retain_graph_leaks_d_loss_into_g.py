import torch
from torch import nn

torch.manual_seed(0)
G = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 2))
D = nn.Sequential(nn.Linear(2, 8), nn.ReLU(), nn.Linear(8, 1))
opt_g = torch.optim.Adam(G.parameters(), lr=1e-3)
opt_d = torch.optim.Adam(D.parameters(), lr=1e-3)
bce = nn.BCEWithLogitsLoss()
ones, zeros = torch.ones(4, 1), torch.zeros(4, 1)

for step in range(2):
    opt_d.zero_grad()
    opt_g.zero_grad()
    real = torch.randn(4, 2) + 3.0
    fake = G(torch.randn(4, 2))

    loss_d = bce(D(real), ones) + bce(D(fake), zeros)
    loss_d.backward(retain_graph=True)  # silences the error
    opt_d.step()
    # Only D has been trained so far, yet G already has gradients.
    leaked = torch.cat([p.grad.flatten() for p in G.parameters()])

    loss_g = bce(D(fake), ones)
    # G's own gradient, for comparison (without touching .grad).
    own = torch.autograd.grad(loss_g, G.parameters(), retain_graph=True)
    own = torch.cat([g.flatten() for g in own])
    cos = nn.functional.cosine_similarity(leaked, own, dim=0)
    print(
        f"step {step}: D step leaves |G.grad| = {leaked.norm():.4f}; "
        f"G's own: {own.norm():.4f}, cosine {cos:.4f}"
    )
    # backward() adds to the leaked gradients; step() applies both.
    loss_g.backward()
    opt_g.step()

# The D step's graph still holds D's saved tensors, here its logits.
bce_real = loss_d.grad_fn.next_functions[0][0]
print(
    f"still held: {type(bce_real).__name__}._saved_self, "
    f"shape {tuple(bce_real._saved_self.shape)}"
)
