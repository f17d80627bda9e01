import torch
from actor_critic import ActorCritic, losses, rollout

torch.manual_seed(0)
model = ActorCritic()
batch = rollout()

# Eager: the two losses share no saved tensors, so this works.
policy_loss, value_loss = losses(model, *batch)
policy_loss.backward()
value_loss.backward()
print("eager: two backward calls work")

# Compiled: actor and critic are now one CompiledFunctionBackward
# node, and the first backward frees all of it.
compiled = torch.compile(model, backend="aot_eager")
policy_loss, value_loss = losses(compiled, *batch)
policy_loss.backward()
print("compiled: first backward done")
value_loss.backward()
