# Runs two FSDP processes (gloo, CPU, loopback): takes a few seconds.
import copy

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp import ShardingStrategy, fully_shard
from torch.distributed.tensor.debug import CommDebugMode
from two_ranks import run_on_two_ranks

SETUPS = ["FSDP FULL_SHARD", "FSDP SHARD_GRAD_OP", "FSDP NO_SHARD"]
SETUPS += ["fully_shard"]


def wrap(model, setup):
    if setup == "fully_shard":
        for layer in (model[0], model[2]):
            fully_shard(layer)
        return fully_shard(model)
    strategy = ShardingStrategy[setup.removeprefix("FSDP ")]
    return FSDP(
        model,
        device_id=torch.device("cpu"),
        use_orig_params=True,
        sharding_strategy=strategy,
    )


def full_weights(model):
    if isinstance(model, FSDP):
        with FSDP.summon_full_params(model):
            return [p.detach().clone() for p in model.parameters()]
    return [p.full_tensor() for p in model.parameters()]


def collectives(comms):
    counts = comms.get_comm_counts().items()
    return ", ".join(f"{n} x {str(op)[5:]}" for op, n in counts)


def both_ranks(t):
    both = [torch.empty_like(t) for _ in range(2)]
    dist.all_gather(both, t)
    return torch.cat(both)


def losses(model, x, y):
    out = model(x)
    return nn.functional.mse_loss(out, y), out.abs().mean()


def train(rank):
    for setup in SETUPS:
        torch.manual_seed(0)
        net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        alone = copy.deepcopy(net)  # one process, both ranks' batches
        model = wrap(net, setup)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        opt_alone = torch.optim.SGD(alone.parameters(), lr=0.1)
        # --8<-- [start:fix]
        for step in range(3):
            torch.manual_seed(10 * step + rank)  # a batch per rank
            x, y = torch.randn(8, 4), torch.randn(8, 1)
            opt.zero_grad()
            loss_a, loss_b = losses(model, x, y)
            (loss_a + loss_b).backward()  # one backward, on the sum
            opt.step()
            # --8<-- [end:fix]
            opt_alone.zero_grad()
            sum(losses(alone, both_ranks(x), both_ranks(y))).backward()
            opt_alone.step()
        weights = zip(full_weights(model), alone.parameters())
        same = all(torch.allclose(w, a) for w, a in weights)
        # The collectives of one such backward, without a step.
        opt.zero_grad()
        loss_a, loss_b = losses(model, x, y)
        with CommDebugMode() as comms:
            (loss_a + loss_b).backward()
        if rank == 0:
            print(
                f"{setup}: 3 steps, weights = one process on both "
                f"batches: {same}; backward: {collectives(comms)}"
            )


run_on_two_ranks(train)
