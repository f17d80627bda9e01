# Runs two FSDP processes (gloo, CPU, loopback): takes a few seconds.
import copy
from collections import Counter

import torch
import torch.distributed as dist
from torch import nn
from torch.distributed.fsdp import FullyShardedDataParallel as FSDP
from torch.distributed.fsdp import ShardingStrategy, fully_shard
from torch.distributed.tensor.debug import CommDebugMode
from two_ranks import gap_between_ranks, run_on_two_ranks

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


def full_grads(model):
    if not isinstance(model, FSDP):  # fully_shard: DTensor shards
        return [p.grad.full_tensor() for p in model.parameters()]
    if model.sharding_strategy == ShardingStrategy.NO_SHARD:
        return [p.grad.clone() for p in model.parameters()]
    return None  # sharded: only summon_full_params could gather them


def collectives(*modes):
    counts = Counter()
    for mode in modes:
        counts.update(
            {str(op)[5:]: n for op, n in mode.get_comm_counts().items()}
        )
    return ", ".join(f"{n} x {op}" for op, n in counts.items())


def averaged(tensors):
    tensors = [t.clone() for t in tensors]
    for t in tensors:
        dist.all_reduce(t)
        t /= dist.get_world_size()
    return tensors


def losses(model, x, y):
    out = model(x)
    return nn.functional.mse_loss(out, y), out.abs().mean()


def train(rank):
    for setup in SETUPS:
        torch.manual_seed(0)
        net = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Linear(8, 1))
        local = copy.deepcopy(net)  # no FSDP: the reference
        model = wrap(net, setup)
        opt = torch.optim.SGD(model.parameters(), lr=0.1)
        torch.manual_seed(1 + rank)  # each rank gets its own batch
        x, y = torch.randn(8, 4), torch.randn(8, 1)
        loss_a, loss_b = losses(model, x, y)
        try:
            with CommDebugMode() as comms_a:
                loss_a.backward(retain_graph=True)
            grads_a = full_grads(model)  # loss_a's gradient
            with CommDebugMode() as comms_b:
                loss_b.backward()
        except RuntimeError as error:
            if rank == 0:
                print(f"{setup}: raised {error}")
            continue
        grads_b = [g - a for g, a in zip(full_grads(model), grads_a)]
        # Each loss's own gradient on this rank, without FSDP.
        params = list(local.parameters())
        local_a, local_b = losses(local, x, y)
        grad_a = torch.autograd.grad(local_a, params, retain_graph=True)
        grad_b = torch.autograd.grad(local_b, params)
        a_ok = all(map(torch.allclose, grads_a, averaged(grad_a)))
        b_ok = all(map(torch.allclose, grads_b, averaged(grad_b)))
        line = f"{setup}: loss_a's gradient averaged: {a_ok}, "
        line += f"loss_b's: {b_ok}; {collectives(comms_a, comms_b)}"
        opt.step()
        if setup.endswith("NO_SHARD"):
            b_local = all(map(torch.allclose, grads_b, grad_b))
            gap = gap_between_ranks(model.parameters())
            line += f"\n  loss_b's gradient stayed local: {b_local}; "
            line += f"after step(), replicas differ by {gap:.4f}"
        if rank == 0:
            print(line)


run_on_two_ranks(train)
