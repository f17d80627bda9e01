# Runs two FSDP processes (gloo, CPU, loopback): takes a few seconds.
import torch
from torch import nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp import fully_shard
from two_ranks import run_on_two_ranks


def wrap(model, setup):
    if setup == "FSDP":
        return FSDP(model, device_id=torch.device("cpu"))
    keep = setup.endswith("=False")  # reshard_after_forward=False
    for layer in (model[0], model[2]):
        fully_shard(layer, reshard_after_forward=not keep)
    return fully_shard(model, reshard_after_forward=not keep)


def train(rank):
    for setup in [
        "FSDP",
        "fully_shard",
        "fully_shard, reshard_after_forward=False",
    ]:
        torch.manual_seed(0)
        net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        model = wrap(net, setup)
        torch.manual_seed(1 + rank)  # each rank gets its own batch
        x, y = torch.randn(8, 4, requires_grad=True), torch.randn(8, 1)
        out = model(x)
        # A gradient penalty: the input gradient, kept differentiable.
        (grad_x,) = torch.autograd.grad(out.sum(), x, create_graph=True)
        penalty = (grad_x.norm(dim=1) - 1).pow(2).mean()
        loss = nn.functional.mse_loss(out, y) + penalty
        try:
            loss.backward()
            result = "ran"
        except RuntimeError as error:
            result = f"raised {error}"
        if rank == 0:
            print(f"{setup}: autograd.grad ran; backward {result}")


run_on_two_ranks(train)
