"""Shards on a CUDA device (torch tensors, CuPy arrays): read in place by the CUDA
backend on the caller's current stream, results as arrays of the caller's framework
on its device, answers equal to NumPy's on the concatenation. Marker gpu (skipped
without a CUDA device, kselect's CUDA backend and torch or cupy). Processes share the
GPUs: process r uses device r % device count."""
import numpy as np
import pytest

import kselect
from mpi_helpers import LAYOUTS, bits, expected_topk, gathered, make_shard, same

pytestmark = pytest.mark.gpu

TORCH_TYPES = ["float16", "float32", "float64", "int32", "int64"]  # torch's unsigned types lack kernels
CUPY_TYPES = ["float16", "float32", "float64", "int32", "int64", "uint32", "uint64"]


def _torch(comm):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA device")
    torch.cuda.set_device(comm.Get_rank() % torch.cuda.device_count())
    return torch


def _cupy(comm):
    cp = pytest.importorskip("cupy")
    cp.cuda.Device(comm.Get_rank() % cp.cuda.runtime.getDeviceCount()).use()
    return cp


def _host(result):
    """A torch or CuPy result as NumPy (a 0-d result as a NumPy scalar, as NumPy's)."""
    if hasattr(result, "cpu"):
        result = result.cpu().numpy()
    elif hasattr(result, "get"):
        result = result.get()
    result = np.asarray(result)
    return result[()] if result.ndim == 0 else result


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("dtype", TORCH_TYPES)
def test_torch_shards(comm, dtype, layout):
    torch = _torch(comm)
    host = make_shard(comm, dtype, layout, seed=20, nans=0.02)
    full = gathered(comm, host)
    shard = torch.from_numpy(host).cuda()
    n = full.size
    q = [0.0, 0.1, 0.5, 0.97, 1.0]
    got = {
        "quantile": kselect.quantile(shard, q, method="hazen", comm=comm),
        "median": kselect.median(shard, comm=comm),
        "select": kselect.select(shard, n // 3, comm=comm),
        "multiselect": kselect.multiselect(shard, [n - 1, 0, n // 2], comm=comm),
    }
    want = {
        "quantile": np.quantile(full, q, method="hazen"),
        "median": np.median(full),
        "select": np.sort(full)[n // 3],
        "multiselect": np.sort(full)[[n - 1, 0, n // 2]],
    }
    if np.dtype(dtype).kind == "f":
        got["nanquantile"] = kselect.nanquantile(shard, q, comm=comm)
        want["nanquantile"] = np.nanquantile(full, q)
    v, i = kselect.topk(shard, n // 2, comm=comm)
    for key, result in got.items():
        assert isinstance(result, torch.Tensor) and result.device == shard.device, (key, result)
        same(_host(result), want[key], key)
    assert v.device == shard.device and i.dtype == torch.int64
    offsets = np.cumsum([0] + comm.allgather(host.size))
    order = expected_topk(full, n // 2, True)
    mine = order[(order >= offsets[comm.Get_rank()]) & (order < offsets[comm.Get_rank() + 1])]
    assert np.array_equal(i.cpu().numpy(), mine)
    assert np.array_equal(bits(v.cpu().numpy()), bits(full[mine]))


def test_torch_bfloat16_shards(comm):
    torch = _torch(comm)
    rng = np.random.default_rng([21, comm.Get_rank()])
    shard = torch.from_numpy(rng.normal(size=1000 + comm.Get_rank())).to(torch.bfloat16).cuda()
    whole = torch.cat([torch.from_numpy(a).view(torch.bfloat16) for a in
                       comm.allgather(shard.cpu().view(torch.int16).numpy())])  # on the host
    q = [0.05, 0.5, 0.95]
    pairs = [
        (kselect.quantile(shard, q, comm=comm), kselect.quantile(whole, q)),
        (kselect.median(shard, comm=comm), kselect.median(whole)),
        (kselect.select(shard, 17, comm=comm), kselect.select(whole, 17)),
    ]
    v, i = kselect.topk(shard, 9, comm=comm, root=0)
    for got, want in pairs:
        assert got.dtype == want.dtype and got.is_cuda
        assert torch.equal(got.cpu(), want), (got, want)
    if comm.Get_rank() == 0:
        wv, wi = kselect.topk(whole, 9, deterministic=True)
        assert torch.equal(i.cpu(), wi) and torch.equal(v.cpu(), wv)


def test_torch_on_the_callers_stream(comm):
    torch = _torch(comm)
    rng = np.random.default_rng([22, comm.Get_rank()])
    host = rng.normal(size=1 << 20).astype(np.float32)
    full = gathered(comm, host)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        t = torch.from_numpy(host).cuda()
        t.mul_(2)  # queued on s: the call must see the doubled values
        got = kselect.quantile(t, [0.25, 0.5], comm=comm)
        big = kselect.topk(t, 1000, comm=comm, root=0)
    s.synchronize()
    same(_host(got), np.quantile(full * 2, [0.25, 0.5]))
    if comm.Get_rank() == 0:
        assert np.array_equal(big[1].cpu().numpy(), expected_topk(full * 2, 1000, True))


@pytest.mark.parametrize("dtype", CUPY_TYPES)
def test_cupy_shards(comm, dtype):
    cp = _cupy(comm)
    host = make_shard(comm, dtype, "uneven", seed=23, nans=0.02)
    full = gathered(comm, host)
    shard = cp.asarray(host)
    n = full.size
    got = [kselect.quantile(shard, [0.2, 0.8], comm=comm), kselect.median(shard, comm=comm),
           kselect.select(shard, -1, comm=comm)]
    v, i = kselect.topk(shard, n, largest=False, sorted=False, comm=comm)
    for result in got:
        assert isinstance(result, cp.ndarray)
    same(_host(got[0]), np.quantile(full, [0.2, 0.8]))
    same(_host(got[1]), np.median(full))
    same(_host(got[2]), np.sort(full)[-1])
    offsets = np.cumsum([0] + comm.allgather(host.size))
    assert np.array_equal(cp.asnumpy(i), np.arange(offsets[comm.Get_rank()], offsets[comm.Get_rank() + 1]))
    assert np.array_equal(bits(cp.asnumpy(v)), bits(host))


def test_gpu_and_host_shards_together(comm):
    torch = _torch(comm)
    host = make_shard(comm, np.float64, "uneven", seed=24)
    full = gathered(comm, host)
    shard = torch.from_numpy(host).cuda() if comm.Get_rank() % 2 == 0 else host  # even processes on the GPU
    got = kselect.quantile(shard, [0.3, 0.6], comm=comm)
    same(_host(got), np.quantile(full, [0.3, 0.6]))


def test_nccl_transport(comm):
    # transport="nccl": the counts all-reduced on the GPUs. NCCL needs one GPU per
    # process: run where there are as many GPUs as processes (else skipped).
    torch = _torch(comm)
    if torch.cuda.device_count() < comm.Get_size():
        pytest.skip("transport='nccl' needs one GPU per process")
    host = make_shard(comm, np.float32, "uneven", seed=25)
    full = gathered(comm, host)
    shard = torch.from_numpy(host).cuda()
    report = {}
    try:
        got = kselect.quantile(shard, [0.01, 0.5, 0.99], comm=comm, transport="nccl", report=report)
    except ValueError as e:
        if "built without NCCL" in str(e):
            pytest.skip(str(e))
        raise
    same(_host(got), np.quantile(full, [0.01, 0.5, 0.99]))
    assert report["transport"] == "nccl", report
    k = min(7, full.size)  # one process's uneven shard may hold fewer
    v, i = kselect.topk(shard, k, comm=comm, root=0, transport="nccl")
    if comm.Get_rank() == 0:
        assert np.array_equal(_host(i), expected_topk(full, k, True))
