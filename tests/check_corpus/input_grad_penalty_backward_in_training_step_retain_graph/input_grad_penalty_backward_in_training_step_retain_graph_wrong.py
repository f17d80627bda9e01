# https://github.com/Lightning-AI/pytorch-lightning/issues/1771
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class LitClassifier(nn.Module):
    def __init__(self, grad_penalty_weight=300.0):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(10, 32), nn.Tanh(), nn.Linear(32, 3))
        self.grad_penalty_weight = grad_penalty_weight

    def training_step(self, batch, batch_idx):
        x, y = batch
        x = x.clone().requires_grad_(True)
        loss = F.cross_entropy(self.net(x), y)
        loss.backward(retain_graph=True)
        input_grad = x.grad
        grad_penalty = input_grad.pow(2).sum(1).mean()
        return {"loss": loss + self.grad_penalty_weight * grad_penalty, "penalty": grad_penalty}

    def configure_optimizers(self):
        return torch.optim.Adam(self.parameters(), lr=1e-2)


def reference_grads(model, batch):
    x, y = batch
    x = x.clone().requires_grad_(True)
    loss = F.cross_entropy(model.net(x), y)
    (g,) = torch.autograd.grad(loss, x, create_graph=True)
    params = list(model.parameters())
    loss_grad = torch.cat([t.flatten() for t in torch.autograd.grad(loss, params, retain_graph=True)])
    total = loss + model.grad_penalty_weight * g.pow(2).sum(1).mean()
    return loss_grad, torch.cat([t.flatten() for t in torch.autograd.grad(total, params)])


model = LitClassifier()
optimizer = model.configure_optimizers()
batches = [(torch.randn(32, 10), torch.randint(0, 3, (32,))) for _ in range(10)]
for batch_idx, batch in enumerate(batches):
    out = model.training_step(batch, batch_idx)
    out["loss"].backward()
    used = torch.cat([p.grad.flatten() for p in model.parameters()])
    loss_grad, intended = reference_grads(model, batch)
    print(f"step {batch_idx}: penalty {out['penalty'].item():.2e}, grad used = "
          f"{(used @ loss_grad / (loss_grad @ loss_grad)).item():.3f} x loss grad along it, "
          f"|grad used - grad of loss+penalty|/|.| {((used - intended).norm() / intended.norm()).item():.3f}")
    optimizer.step()
    optimizer.zero_grad()
