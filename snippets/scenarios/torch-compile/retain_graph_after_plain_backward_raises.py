import torch
from actor_critic import ActorCritic, losses, rollout

torch.manual_seed(0)
compiled = torch.compile(ActorCritic(), backend="aot_eager")

# Step 0: one ordinary backward. The compiled backward is built now,
# with donated buffers (saved tensors it may overwrite when done).
policy_loss, value_loss = losses(compiled, *rollout())
(policy_loss + value_loss).backward()
print("step 0: one backward of the sum works")

# Step 1, a logging step: one backward per loss, as the message
# suggests, retain_graph=True on the first.
policy_loss, value_loss = losses(compiled, *rollout())
policy_loss.backward(retain_graph=True)
