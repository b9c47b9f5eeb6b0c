# %% [markdown]
# # kselect with PyTorch on a GPU: a quick start
#
# kselect takes torch CUDA tensors as they are: it reads them in place (no copy of
# a contiguous tensor) on the tensor's device and the current stream
# (`torch.cuda.current_stream()`), and returns torch tensors on the same device.
# This script shows quantiles with NumPy's semantics, a non-default stream, top-k
# of LLM-sized logits against `torch.topk`, a quantile of more elements than
# `torch.quantile` accepts, and what each call returns.
#
# It needs PyTorch with CUDA, a GPU, and kselect built with its CUDA backend (nvcc
# on PATH at `pip install .`); without them it says so and exits (status 0). Run
# it top to bottom (`python examples/python/torch_quickstart.py`) or cell by cell
# (`# %%` cells: VS Code, Spyder, PyCharm, Jupytext). Every cell checks its answers
# against NumPy or torch with `assert`. NumPy only: numpy_quickstart.py.

# %%
import sys

import numpy as np

import kselect

try:
    import torch
except ImportError:
    print("torch_quickstart: PyTorch is not installed (pip install torch); nothing to show without it")
    sys.exit(0)
if not torch.cuda.is_available():
    print("torch_quickstart: PyTorch sees no CUDA device; this script needs a GPU")
    sys.exit(0)
if not kselect.cuda_available():
    print("torch_quickstart: kselect has no usable CUDA backend (it was built without nvcc, or with "
          "KSELECT_WITH_CUDA=OFF); reinstall it with nvcc on PATH: pip install .")
    sys.exit(0)

torch.manual_seed(0)
device = torch.device("cuda")
print(f"kselect {kselect.__version__}, torch {torch.__version__}, {torch.cuda.get_device_name(device)}")

# %% [markdown]
# ## CUDA tensors, in place, on the current stream
#
# The same calls as with NumPy. The answers are NumPy's bit for bit (here checked
# against NumPy on a host copy), dtype included: float32 data with a list of q
# gives float64, as `numpy.quantile` does.

# %%
x = torch.randn(10_000_000, device=device)
qs = [0.01, 0.25, 0.5, 0.75, 0.99]
q = kselect.quantile(x, qs)
host = x.cpu().numpy()
assert isinstance(q, torch.Tensor) and q.device == x.device
assert np.array_equal(q.cpu().numpy(), np.quantile(host, qs)) and q.dtype == torch.float64
for method in ["lower", "nearest", "inverted_cdf", "median_unbiased"]:
    got = kselect.quantile(x, qs, method=method).cpu().numpy()
    assert np.array_equal(got, np.quantile(host, qs, method=method)), method
assert kselect.median(x).item() == np.median(host)
# A non-contiguous view (a transpose, a stride) is copied once to a contiguous tensor first.
m = x[:4_000_000].view(2000, 2000)
assert np.array_equal(kselect.median(m.T, axis=1).cpu().numpy(), np.median(host[:4_000_000].reshape(2000, 2000).T, axis=1))
print("quantiles:", q.cpu().numpy(), "on", q.device)

# %% [markdown]
# ## A non-default stream
#
# kselect runs on the current stream of the tensor's device, so work queued on a
# side stream is ordered with it without any synchronisation of your own: here
# the data is generated on stream `s` and its row medians are taken on `s`.

# %%
s = torch.cuda.Stream()
with torch.cuda.stream(s):
    z = torch.rand(4096, 8192, device=device)  # queued on s
    med = kselect.median(z, axis=1)  # on s, after the rand kernel
    top_v, top_i = kselect.topk(z, 8)  # on s too
torch.cuda.current_stream().wait_stream(s)  # before using z and med on the default stream
z_host = z.cpu().numpy()
assert np.array_equal(med.cpu().numpy(), np.median(z_host, axis=1))
assert torch.equal(top_v, torch.topk(z, 8).values)
print("row medians on a side stream:", med[:4].cpu().numpy())

# %% [markdown]
# ## Top-k of LLM logits
#
# Sampling from a language model takes the k largest logits of every row of a
# (batch, vocabulary) matrix, here 64 x 151936 in bfloat16, along the last axis.
# `kselect.topk` is called like `torch.topk` and gives the same values. bfloat16
# has many ties, and among logits tied with the k-th neither call promises which
# positions it takes; `deterministic=True` makes kselect take those of smaller
# index, the choice of a stable sort.

# %%
logits = (3 * torch.randn(64, 151936, device=device)).to(torch.bfloat16)
k = 50
values, indices = kselect.topk(logits, k)
ref_values, ref_indices = torch.topk(logits, k)
assert values.dtype == torch.bfloat16 and indices.dtype == torch.int64 and values.shape == (64, k)
assert torch.equal(values, ref_values)  # sorted values: equal whichever tied positions were taken
assert torch.equal(torch.gather(logits, -1, indices), values)  # the indices point at those values
assert all(len(set(row)) == k for row in indices.cpu().tolist())  # k distinct positions per row

det_values, det_indices = kselect.topk(logits, k, deterministic=True)
sorted_values, sorted_indices = torch.sort(logits, dim=-1, descending=True, stable=True)
assert torch.equal(det_indices, sorted_indices[:, :k]) and torch.equal(det_values, sorted_values[:, :k])
differ = int((indices != ref_indices).sum())
print(f"top-{k} of {tuple(logits.shape)} bfloat16: the values of torch.topk; {differ} of {indices.numel()} "
      "positions differ from torch's, all at tied logits")

# %% [markdown]
# ## A quantile of more than 2^24 elements
#
# `torch.quantile` refuses inputs of more than 2^24 elements; kselect has no such
# limit (and does not sort).

# %%
big = torch.randn(2**25, device=device)
try:
    torch.quantile(big, 0.5)
    print("torch.quantile accepted 2^25 elements (a newer torch than this script knew)")
except RuntimeError as e:
    print(f"torch.quantile: {str(e).splitlines()[0]}")
tails = kselect.quantile(big, [1e-6, 0.5, 1 - 1e-6])
assert np.array_equal(tails.cpu().numpy(), np.quantile(big.cpu().numpy(), [1e-6, 0.5, 1 - 1e-6]))
print(f"kselect.quantile of 2^25 elements: {tails.cpu().numpy()}")

# %% [markdown]
# ## What comes back
#
# Results are torch tensors on the input's device, with NumPy's dtypes (a scalar
# q gives a 0-d tensor; the NaN rules and the dtypes are numpy.quantile's); top-k
# and filter indices are int64; `count` is a Python int. select, multiselect and
# topk write their results on the GPU; quantiles are combined from the selected
# order statistics on the host (a few values) and copied back.

# %%
y = torch.randn(1_000_000, device=device)
results = {
    "quantile(y, 0.5)": kselect.quantile(y, 0.5),
    "quantile(y, [0.5])": kselect.quantile(y, [0.5]),
    "median(y.double())": kselect.median(y.double()),
    "select(y, 10)": kselect.select(y, 10),
    "topk(y, 3)[1]": kselect.topk(y, 3)[1],
    "filter(y, lo=3.0)": kselect.filter(y, lo=3.0),
    "count(y, lo=3.0)": kselect.count(y, lo=3.0),
}
for name, r in results.items():
    if isinstance(r, torch.Tensor):
        print(f"{name:>20}: torch.Tensor {r.dtype} on {r.device}, shape {tuple(r.shape)}")
        assert r.device == y.device
    else:
        print(f"{name:>20}: {type(r).__name__} {r}")
assert results["quantile(y, 0.5)"].dtype == torch.float32 and results["quantile(y, 0.5)"].ndim == 0
assert results["quantile(y, [0.5])"].dtype == torch.float64
assert results["median(y.double())"].dtype == torch.float64
assert results["topk(y, 3)[1]"].dtype == torch.int64
assert torch.equal(results["filter(y, lo=3.0)"], y[y >= 3.0])
assert isinstance(results["count(y, lo=3.0)"], int) and results["count(y, lo=3.0)"] == int((y >= 3.0).sum())

# %%
print("torch_quickstart: all checks passed")
