import torch
from actor_critic import ActorCritic, losses, rollout

torch.manual_seed(0)
model = ActorCritic()
batch = rollout()

# Reference: eager, one backward per loss.
policy_loss, value_loss = losses(model, *batch)
policy_loss.backward()
value_loss.backward()
eager_grads = [p.grad.clone() for p in model.parameters()]

model.zero_grad()
# --8<-- [start:fix]
compiled = torch.compile(model, backend="aot_eager")
policy_loss, value_loss = losses(compiled, *batch)
(policy_loss + value_loss).backward()  # one pass through the node
# --8<-- [end:fix]
print(
    "same gradients as the eager separate backward calls:",
    all(
        torch.allclose(p.grad, g)
        for p, g in zip(model.parameters(), eager_grads)
    ),
)
