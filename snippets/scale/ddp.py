# Two processes train one model with DistributedDataParallel (gloo, CPU).
# --8<-- [start:setup]
import socket

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.distributed.algorithms.ddp_comm_hooks import default_hooks
from torch.nn.parallel import DistributedDataParallel

torch.manual_seed(0)  # the same data and starting weights on every run
inputs = torch.randn(16, 3)
targets = inputs @ torch.tensor([1.5, -2.0, 0.5]) + 0.3 * torch.randn(16)
start = torch.nn.Linear(3, 1).state_dict()  # both processes start here


def gradient_of(model):
    return torch.cat([p.grad.flatten() for p in model.parameters()])


def loss_on(model, x, y):
    return torch.nn.functional.mse_loss(model(x).squeeze(1), y)


one = torch.nn.Linear(3, 1)  # one process, the whole batch
one.load_state_dict(start)
loss_on(one, inputs, targets).backward()
whole = gradient_of(one)
# --8<-- [end:setup]


# --8<-- [start:worker]
def worker(rank, world, meeting, results):
    """One process: its half of the batch, its copy of the model."""
    dist.init_process_group(  # wait until all `world` processes have come
        "gloo", init_method=meeting, rank=rank, world_size=world
    )
    model = torch.nn.Linear(3, 1)
    model.load_state_dict(start)
    ddp = DistributedDataParallel(model)
    calls = [0]

    def counting_hook(state, bucket):  # DDP calls it once per bucket
        calls[0] += 1
        return default_hooks.allreduce_hook(state, bucket)  # the average

    ddp.register_comm_hook(None, counting_hook)
    half = inputs.chunk(world)[rank], targets.chunk(world)[rank]
    loss_on(ddp, *half).backward()  # the hook runs during this backward
    after_backward = gradient_of(model).tolist(), calls[0]

    ddp.zero_grad()
    (first, second) = zip(half[0].chunk(2), half[1].chunk(2), strict=True)
    with ddp.no_sync():  # accumulate without talking to the other process
        (loss_on(ddp, *first) / 2).backward()
    local = gradient_of(model).tolist(), calls[0]
    (loss_on(ddp, *second) / 2).backward()  # this one is all-reduced
    synced = gradient_of(model).tolist(), calls[0]
    results.put((rank, after_backward, local, synced))
    del ddp  # free DDP before the group it uses (the other order can hang)
    dist.destroy_process_group()


# --8<-- [end:worker]

# --8<-- [start:launch]
if __name__ == "__main__":
    world = 2  # processes
    results = mp.get_context("fork").SimpleQueue()  # what each child sends
    with socket.socket() as free:  # a port no program of this machine uses
        free.bind(("127.0.0.1", 0))
        port = free.getsockname()[1]
    meeting = f"tcp://127.0.0.1:{port}"  # rank 0 listens there, rank 1 calls
    # start the processes, each running worker(rank, world, meeting,
    # results), and wait until all have ended (an error in one ends all)
    mp.start_processes(
        worker,
        args=(world, meeting, results),
        nprocs=world,
        start_method="fork",  # the children start as copies of this
    )
    reports = sorted(results.get() for _ in range(world))  # in rank order
    print("one process, whole batch:", whole)
    for rank, (grad, calls), _, _ in reports:
        print(f"rank {rank}, half batch:   ", torch.tensor(grad), end="")
        print(f"  all-reduce calls: {calls}")
    print("under no_sync, then one more backward outside it:")
    for rank, _, (local, calls_local), (synced, calls_synced) in reports:
        print(f"rank {rank}: local {torch.tensor(local)} calls {calls_local}")
        print(f"        synced {torch.tensor(synced)} calls {calls_synced}")
# --8<-- [end:launch]

# --8<-- [start:claim-ddp]
if __name__ == "__main__":
    ddp_grads = [torch.tensor(r[1][0]) for r in reports]
    # both ranks hold the same gradient, the whole batch's up to rounding
    assert torch.equal(ddp_grads[0], ddp_grads[1])
    assert torch.allclose(ddp_grads[0], whole, rtol=0, atol=1e-6)
    # one bucket for this small model: the hook ran once per backward
    assert [r[1][1] for r in reports] == [1, 1]
    # no_sync: no call, the gradients differ; the next backward: synced
    ddp_local = [torch.tensor(r[2][0]) for r in reports]
    assert not torch.allclose(ddp_local[0], ddp_local[1])
    assert [r[2][1] for r in reports] == [1, 1]
    assert [r[3][1] for r in reports] == [2, 2]
    for ddp_r in reports:
        assert torch.allclose(torch.tensor(ddp_r[3][0]), whole, atol=1e-6)
    # start_processes returned: no process the snippet started is running
    assert mp.active_children() == []
# --8<-- [end:claim-ddp]


# --8<-- [start:claim-ddp-edges]
# the cases a skeptic tries, in two more processes: each knows its rank
# and the number of processes; all-reduce adds up (its
# default op is a sum), and DDP divides by the number of processes first,
# so a hook that only all-reduces gives twice the average; a forward pass
# outside no_sync() with backward() inside is still all-reduced; parts of
# unequal sizes give both ranks the same gradient, not the whole batch's;
# DDP copies rank 0's weights into every rank's model when it wraps it
def edge_worker(rank, world, meeting, edge_results):
    dist.init_process_group(
        "gloo", init_method=meeting, rank=rank, world_size=world
    )
    edge = {"rank": dist.get_rank(), "world": dist.get_world_size()}
    edge_t = torch.tensor([rank + 1.0])
    dist.all_reduce(edge_t)
    edge["sum"] = edge_t.item()
    edge_model = torch.nn.Linear(3, 1)
    edge_model.load_state_dict(start)
    edge_ddp = DistributedDataParallel(edge_model)
    edge_half = inputs.chunk(world)[rank], targets.chunk(world)[rank]
    edge_loss = loss_on(edge_ddp, *edge_half)  # forward outside no_sync
    with edge_ddp.no_sync():
        edge_loss.backward()
    edge["outside"] = gradient_of(edge_model).tolist()
    edge_ddp.zero_grad()
    with edge_ddp.no_sync():  # forward and backward inside: local
        loss_on(edge_ddp, *edge_half).backward()
    edge["inside"] = gradient_of(edge_model).tolist()
    for edge_cut in ([12, 4], [10, 6]):
        edge_ddp.zero_grad()
        edge_part = inputs.split(edge_cut)[rank], targets.split(edge_cut)[rank]
        loss_on(edge_ddp, *edge_part).backward()
        edge[f"cut{edge_cut[0]}"] = gradient_of(edge_model).tolist()
    del edge_ddp

    def plain_allreduce(state, bucket):  # no division by the world size
        edge_work = dist.all_reduce(bucket.buffer(), async_op=True)
        return edge_work.get_future().then(lambda fut: fut.value()[0])

    edge_model2 = torch.nn.Linear(3, 1)
    edge_model2.load_state_dict(start)
    edge_ddp2 = DistributedDataParallel(edge_model2)
    edge_ddp2.register_comm_hook(None, plain_allreduce)
    loss_on(edge_ddp2, *edge_half).backward()
    edge["plain_hook"] = gradient_of(edge_model2).tolist()
    del edge_ddp2
    torch.manual_seed(100 + rank)  # a different start on each rank
    edge_own = torch.nn.Linear(3, 1)
    edge["own"] = edge_own.weight.flatten().tolist()
    edge_ddp3 = DistributedDataParallel(edge_own)
    edge["wrapped"] = edge_own.weight.flatten().tolist()
    edge_results.put((rank, edge))
    del edge_ddp3
    dist.destroy_process_group()


if __name__ == "__main__":
    edge_results = mp.get_context("fork").SimpleQueue()
    with socket.socket() as edge_free:
        edge_free.bind(("127.0.0.1", 0))
        edge_port = edge_free.getsockname()[1]
    mp.start_processes(
        edge_worker,
        args=(world, f"tcp://127.0.0.1:{edge_port}", edge_results),
        nprocs=world,
        start_method="fork",
    )
    edge_by = dict(sorted(edge_results.get() for _ in range(world)))
    edge_0, edge_1 = edge_by[0], edge_by[1]
    # each process's rank is its number, from 0 to the number of processes
    assert [edge_by[r]["rank"] for r in range(world)] == list(range(world))
    assert edge_0["world"] == edge_1["world"] == world
    assert edge_0["sum"] == edge_1["sum"] == 3.0
    edge_twice = torch.tensor(edge_0["plain_hook"])
    assert torch.allclose(edge_twice, 2 * whole, rtol=0, atol=1e-5)
    assert edge_0["outside"] == edge_1["outside"]
    assert torch.allclose(torch.tensor(edge_0["outside"]), whole, atol=1e-6)
    assert edge_0["inside"] != edge_1["inside"]
    for edge_key in ["cut12", "cut10"]:
        assert edge_0[edge_key] == edge_1[edge_key]
        edge_g = torch.tensor(edge_0[edge_key])
        assert (edge_g - whole).abs().max() > 0.1
    assert edge_0["own"] != edge_1["own"]
    assert edge_0["wrapped"] == edge_1["wrapped"] == edge_0["own"]
    assert mp.active_children() == []
# --8<-- [end:claim-ddp-edges]
