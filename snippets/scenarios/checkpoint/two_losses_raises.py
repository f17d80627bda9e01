import torch
from multitask_net import MultiTaskNet, batch, losses

torch.manual_seed(0)
model = MultiTaskNet(use_reentrant=False)
loss_a, loss_b = losses(model, *batch())

loss_a.backward()
print(f"loss_a backward done; trunk ran {model.trunk_runs} times")
# head_b is new to backward, but the trunk's checkpoint is not.
loss_b.backward()
