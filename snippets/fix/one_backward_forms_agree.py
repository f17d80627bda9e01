import torch
from torch import nn

torch.manual_seed(0)
trunk = nn.Sequential(nn.Linear(3, 8), nn.ReLU())
head_a, head_b = nn.Linear(8, 1), nn.Linear(8, 1)
model = nn.ModuleList([trunk, head_a, head_b])
x, ya, yb = torch.randn(16, 3), torch.randn(16, 1), torch.randn(16, 1)
passes = []  # one entry per backward pass through the trunk
trunk[0].weight.register_hook(lambda g: passes.append(1))


def losses():
    h = trunk(x)
    mse = nn.functional.mse_loss
    return mse(head_a(h), ya), mse(head_b(h), yb)


def grads():
    g = [p.grad.clone() for p in model.parameters()]
    model.zero_grad(set_to_none=True)
    passes.clear()
    return g


def same(gs, ref):  # equal up to float rounding
    return all(torch.allclose(g, r) for g, r in zip(gs, ref))


# Reference: two backward calls over one graph.
la, lb = losses()
la.backward(retain_graph=True)
lb.backward()
n = len(passes)
ref = grads()
print(f"two backward calls: trunk passes {n}")

la, lb = losses()
(la + lb).backward()
n = len(passes)
print(
    f"(la + lb).backward(): same .grad: {same(grads(), ref)}, "
    f"trunk passes {n}"
)

la, lb = losses()
torch.autograd.backward([la, lb])
n = len(passes)
print(
    f"autograd.backward([la, lb]): same .grad: "
    f"{same(grads(), ref)}, trunk passes {n}"
)

# Two gradients of one loss: one grad call with both inputs.
w, b = trunk[0].weight, trunk[0].bias
la, lb = losses()
gw, gb = torch.autograd.grad(la + lb, [w, b])
passes.clear()
print(
    f"autograd.grad(loss, [w, b]): same as .grad: "
    f"{same([gw, gb], ref[:2])}"
)

# Backward once, then read .grad for the log, the clip, the step.
la, lb = losses()
(la + lb).backward()
norm = torch.cat([p.grad.flatten() for p in model.parameters()])
norm = norm.norm()
clipped = nn.utils.clip_grad_norm_(model.parameters(), 1.0)
print(
    f"one backward, .grad reused: norm {norm:.4f}, "
    f"clip_grad_norm_ saw {clipped:.4f}"
)
