import torch
from torch import nn
from torch.nn import functional as F

torch.manual_seed(0)
encoder = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 16))
depth_head = nn.Linear(16, 1)  # task A: regression
class_head = nn.Linear(16, 3)  # task B: classification
modules = {"encoder": encoder, "depth head": depth_head}
modules["class head"] = class_head
# One optimizer per module, each with its own learning rate.
opt_encoder = torch.optim.SGD(encoder.parameters(), lr=0.05)
opt_depth = torch.optim.SGD(depth_head.parameters(), lr=0.1)
opt_class = torch.optim.SGD(class_head.parameters(), lr=0.01)
optimizers = (opt_encoder, opt_depth, opt_class)

x = torch.randn(32, 8)
depth, label = torch.randn(32, 1), torch.randint(0, 3, (32,))


def losses():
    features = encoder(x)
    loss_depth = F.mse_loss(depth_head(features), depth)
    loss_class = F.cross_entropy(class_head(features), label)
    return loss_depth, loss_class


def each_task_alone():
    """Each task's gradient for each module, from its own forward."""
    alone = []
    for loss in losses():
        per_module = {}
        for name, module in modules.items():
            grads = torch.autograd.grad(
                loss,
                list(module.parameters()),
                retain_graph=True,
                allow_unused=True,
            )
            flat = [
                torch.zeros_like(p).flatten()
                if g is None
                else g.flatten()
                for g, p in zip(grads, module.parameters())
            ]
            per_module[name] = torch.cat(flat)
        alone.append(per_module)
    return alone


def grad_of(module):
    return torch.cat([p.grad.flatten() for p in module.parameters()])


for step in range(3):
    by_depth, by_class = each_task_alone()
    for opt in optimizers:
        opt.zero_grad()
    # --8<-- [start:fix]
    features = encoder(x)
    loss_depth = F.mse_loss(depth_head(features), depth)
    loss_class = F.cross_entropy(class_head(features), label)
    # Every backward before any step: one backward, of the sum.
    (loss_depth + loss_class).backward()
    for opt in (opt_encoder, opt_depth, opt_class):
        opt.step()
    # --8<-- [end:fix]
    print(
        f"step {step}: losses {loss_depth.item():.4f}, "
        f"{loss_class.item():.4f}; |grad|, and is it depth's + class's?"
    )
    for name, module in modules.items():
        a, b = by_depth[name].norm(), by_class[name].norm()
        same = torch.allclose(
            grad_of(module), by_depth[name] + by_class[name], atol=1e-6
        )
        print(
            f"  {name:10} {grad_of(module).norm():.4f} "
            f"(depth's {a:.4f}, class's {b:.4f}): {same}"
        )
