import torch
import torch._functorch.config
from actor_critic import ActorCritic, losses, rollout

torch.manual_seed(0)
compiled = torch.compile(ActorCritic(), backend="aot_eager")

# Donated buffers off while the backward is compiled and run.
with torch._functorch.config.patch(donated_buffer=False):
    policy_loss, value_loss = losses(compiled, *rollout())
    (policy_loss + value_loss).backward()

    policy_loss, value_loss = losses(compiled, *rollout())
    policy_loss.backward(retain_graph=True)
    value_loss.backward()
print("ordinary backward, then retain_graph=True: both work")
