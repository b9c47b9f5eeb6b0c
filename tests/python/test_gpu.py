"""GPU inputs (torch and cupy) against NumPy on the same data, torch.topk's semantics,
the caller's stream, and no copy of contiguous input. Marker gpu: skipped without a
CUDA device, the package's CUDA backend and torch or cupy (conftest.py)."""
import numpy as np
import pytest

import kselect

pytestmark = pytest.mark.gpu

torch = pytest.importorskip("torch")


def _cupy():
    try:
        import cupy

        return cupy
    except ImportError:
        pytest.skip("cupy is not installed")


DTYPES = ["float32", "float64", "int32", "int64"]


def host_data(dtype, n=100_003, seed=0):
    rng = np.random.default_rng(seed)
    if dtype.startswith("float"):
        a = rng.normal(size=n).astype(dtype)
        a[::97] = a[5]  # ties
        return a
    return rng.integers(-1000, 1000, size=n).astype(dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("method", ["linear", "hazen", "inverted_cdf", "nearest"])
def test_torch_quantile_matches_numpy(dtype, method):
    a = host_data(dtype)
    t = torch.from_numpy(a).cuda()
    q = [0.0, 0.01, 0.5, 0.99, 1.0]
    got = kselect.quantile(t, q, method=method)
    assert isinstance(got, torch.Tensor) and got.device == t.device
    expected = np.quantile(a, q, method=method)
    assert np.array_equal(got.cpu().numpy(), expected)
    assert kselect.median(t).item() == np.median(a)


@pytest.mark.parametrize("dtype", DTYPES)
def test_cupy_select_and_axis_quantile(dtype):
    cp = _cupy()
    a = host_data(dtype, n=64 * 1000).reshape(64, 1000)
    c = cp.asarray(a)
    got = kselect.quantile(c, [0.25, 0.5], axis=1)
    assert isinstance(got, cp.ndarray)
    assert np.array_equal(cp.asnumpy(got), np.quantile(a, [0.25, 0.5], axis=1))
    assert np.array_equal(cp.asnumpy(kselect.select(c, 10, axis=1)), np.sort(a, axis=1)[:, 10])
    assert kselect.select(c.ravel(), 777).item() == np.sort(a.ravel())[777]


def test_nan_rules_on_gpu():
    a = host_data("float32")
    a[123] = np.nan
    t = torch.from_numpy(a).cuda()
    assert np.isnan(kselect.quantile(t, 0.5).item())
    assert kselect.nanquantile(t, 0.5).item() == np.nanquantile(a, 0.5)
    rows = a[: 100 * 1000].reshape(100, 1000)
    got = kselect.nanquantile(torch.from_numpy(rows).cuda(), [0.1, 0.9], axis=1).cpu().numpy()
    assert np.array_equal(got, np.nanquantile(rows, [0.1, 0.9], axis=1), equal_nan=True)


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
@pytest.mark.parametrize("largest", [True, False])
def test_topk_like_torch(dtype, largest):
    t = torch.randn(64, 5000, device="cuda").to(getattr(torch, dtype))
    values, indices = kselect.topk(t, 50, largest=largest, sorted=True)
    ref_values, _ = torch.topk(t, 50, largest=largest, sorted=True)
    assert values.dtype == t.dtype and indices.dtype == torch.int64 and values.device == t.device
    assert torch.equal(values, ref_values)  # sorted values are unique up to ties
    assert torch.equal(torch.gather(t, 1, indices), values)
    assert all(len(set(row)) == 50 for row in indices.cpu().tolist())


def test_topk_flat_float32_deterministic():
    t = torch.randint(0, 50, (1_000_003,), device="cuda").float()
    v1, i1 = kselect.topk(t, 1000, deterministic=True, sorted=True)
    v2, i2 = kselect.topk(t, 1000, deterministic=True, sorted=True)
    assert torch.equal(i1, i2) and torch.equal(v1, v2)
    assert torch.equal(v1, torch.topk(t, 1000).values)


def test_runs_on_the_callers_stream():
    a = host_data("float32", n=1 << 22)
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        t = torch.from_numpy(a).to("cuda", non_blocking=False)
        t.mul_(2)  # queued on s: kselect must see the doubled values
        got = kselect.quantile(t, [0.5, 0.9])
    s.synchronize()
    assert np.array_equal(got.cpu().numpy(), np.quantile(a * 2, [0.5, 0.9]))
    cp = _cupy()
    with cp.cuda.Stream(non_blocking=True):
        c = cp.asarray(a) * 3
        got = kselect.select(c, 12345)
    assert got.item() == np.sort(a * 3)[12345]


def test_no_copy_of_contiguous_input():
    t = torch.randn(1 << 20, device="cuda")
    kselect.select(t, 5)
    assert kselect._kselect.last_input_pointer() == t.data_ptr()
    cp = _cupy()
    c = cp.arange(1000, dtype=cp.float32)
    kselect.topk(c, 3)
    assert kselect._kselect.last_input_pointer() == c.data.ptr


def test_filter_count_rank_range_on_gpu():
    a = host_data("float32")
    t = torch.from_numpy(a).cuda()
    got = kselect.filter(t, lo=-0.5, hi=0.5)
    assert np.array_equal(got.cpu().numpy(), a[(a >= -0.5) & (a < 0.5)])
    assert kselect.count(t, op="gt", value=1.0) == int((a > 1.0).sum())
    v, i = kselect.rank_range(t, 10, 20, sorted=True)
    order = np.argsort(a, kind="stable")[10:20]
    assert np.array_equal(i.cpu().numpy(), order)


def test_gpu_errors():
    t = torch.randn(10, device="cuda")
    with pytest.raises(ValueError, match="kselect"):
        kselect.select(t, 10)
    with pytest.raises(TypeError, match="kselect"):
        kselect.select(t.to(torch.bool), 0)
    with pytest.raises(ValueError, match="kselect"):
        kselect.quantile(torch.empty(0, device="cuda"), 0.5)


ALL_KEYS = ["float32", "float64", "int32", "int64", "uint32", "uint64", "float16", "bfloat16"]


def gpu_arrays(kind, a, dtype):
    """a (NumPy, of a type NumPy has) on the GPU as `kind` with key type dtype, and the
    NumPy array whose values it holds (bfloat16: the float32 values it rounds to)."""
    if kind == "torch":
        t = torch.from_numpy(np.ascontiguousarray(a.astype(np.float32) if dtype == "bfloat16" else a)).cuda()
        if dtype == "bfloat16":
            t = t.to(torch.bfloat16)
            return t, t.float().cpu().numpy()
        return t, a
    cp = _cupy()
    if dtype == "bfloat16":
        pytest.skip("cupy has no bfloat16")
    return cp.asarray(a), a


def to_host(r):
    if isinstance(r, torch.Tensor):
        return (r.float() if r.dtype == torch.bfloat16 else r).cpu().numpy()
    return _cupy().asnumpy(r)


@pytest.mark.parametrize("kind", ["torch", "cupy"])
@pytest.mark.parametrize("dtype", ALL_KEYS)
@pytest.mark.parametrize("n", [1, 1000, 1001, 16384, 16385, 300_001])
def test_results_made_on_the_gpu_match_numpy(kind, dtype, n):
    """select, multiselect, median and topk, whose results the device API writes on the
    GPU (one batched row up to 16384 keys, the single-array calls above), against NumPy
    on the same values, for every key type."""
    rng = np.random.default_rng(n)
    np_dtype = "float32" if dtype == "bfloat16" else dtype
    if np_dtype.startswith("float"):
        a = rng.normal(size=n).astype(np_dtype)
    else:
        a = rng.integers(0, 1000, size=n).astype(np_dtype)
    if kind == "torch" and dtype.startswith("uint"):
        pytest.skip("torch's unsigned tensors: covered through cupy")
    g, ref = gpu_arrays(kind, a, dtype)
    s = np.sort(ref)
    got = kselect.select(g, n // 2)
    assert got.shape == () and to_host(got) == s[n // 2]
    ks = [n - 1, 0, n // 3, 0]
    assert np.array_equal(to_host(kselect.multiselect(g, ks)), s[ks])
    med = kselect.median(g)
    assert med.shape == () and to_host(med) == np.median(ref)
    pcts = [0, 25, 50, 99.9, 100]  # 5 q, up to 11 ranks: the single-array call above 4 ranks
    assert np.array_equal(to_host(kselect.percentile(g, pcts)), np.percentile(ref, pcts))
    if dtype in ("float32", "float64", "float16") and n > 2:
        with_nan = a.copy()
        with_nan[n // 2] = np.nan
        gn, refn = gpu_arrays(kind, with_nan, dtype)
        assert np.isnan(to_host(kselect.median(gn)))
    k = min(n, 50)
    values, indices = kselect.topk(g, k, largest=True, sorted=True)
    assert np.array_equal(to_host(values), s[::-1][:k])
    assert np.array_equal(ref[to_host(indices)], to_host(values))
    v0, i0 = kselect.topk(g, 0)
    assert v0.shape == (0,) and i0.shape == (0,)


@pytest.mark.parametrize("kind", ["torch", "cupy"])
def test_axis_results_made_on_the_gpu(kind):
    rng = np.random.default_rng(7)
    a = rng.normal(size=(6, 300, 5)).astype(np.float32)
    g, ref = gpu_arrays(kind, a, "float32")
    for axis in (0, 1, 2, -1):
        s = np.sort(ref, axis=axis)
        assert np.array_equal(to_host(kselect.select(g, 3, axis=axis)), np.take(s, 3, axis=axis))
        assert np.array_equal(to_host(kselect.multiselect(g, [4, 0, 4], axis=axis)),
                              np.stack([np.take(s, j, axis=axis) for j in (4, 0, 4)]))
        assert np.array_equal(to_host(kselect.median(g, axis=axis)), np.median(ref, axis=axis))
        assert np.array_equal(to_host(kselect.median(g, axis=axis, keepdims=True)),
                              np.median(ref, axis=axis, keepdims=True))
        values, indices = kselect.topk(g, 2, axis=axis, largest=False)
        assert np.array_equal(to_host(values), np.take(s, [0, 1], axis=axis))
        assert np.array_equal(np.take_along_axis(ref, to_host(indices), axis=axis), to_host(values))


@pytest.mark.parametrize("kind", ["torch", "cupy"])
def test_scalar_q_gives_a_0d_result_of_numpys_dtype(kind):
    a = np.random.default_rng(3).normal(size=10_001).astype(np.float32)
    g, _ = gpu_arrays(kind, a, "float32")
    for got, want in ((kselect.quantile(g, 0.5), np.quantile(a, 0.5)),
                      (kselect.percentile(g, 90), np.percentile(a, 90)),
                      (kselect.nanquantile(g, 0.25), np.nanquantile(a, 0.25)),
                      (kselect.quantile(g, [0.5]), np.quantile(a, [0.5]))):
        assert got.shape == np.shape(want)
        assert to_host(got).dtype == np.asarray(want).dtype
        assert np.array_equal(to_host(got), want)
