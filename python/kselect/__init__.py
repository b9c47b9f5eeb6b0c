"""kselect: exact selection on GPUs and CPUs.

The k-th smallest value, many ranks, quantiles and percentiles with NumPy's thirteen
methods, medians, top-k with indices, rank ranges, approximate selection and
order-preserving filters, of NumPy arrays (CPU backend) and of PyTorch and CuPy
arrays on a CUDA device (in place, on the caller's current stream).

    >>> import numpy as np, kselect
    >>> a = np.random.default_rng(0).normal(size=1_000_000).astype(np.float32)
    >>> kselect.quantile(a, [0.01, 0.5, 0.99])        # numpy.quantile's answer, by selection
    >>> values, indices = kselect.topk(a, 10)          # like torch.topk
"""
from ._api import (
    approx_select,
    count,
    filter,
    kth,
    median,
    multiselect,
    nanpercentile,
    nanquantile,
    percentile,
    quantile,
    rank_range,
    select,
    topk,
)
from ._arrays import cuda_available
from ._quantile import METHODS as quantile_methods

__version__ = "0.1.0"

__all__ = [
    "approx_select",
    "count",
    "cuda_available",
    "filter",
    "kth",
    "median",
    "multiselect",
    "nanpercentile",
    "nanquantile",
    "percentile",
    "quantile",
    "quantile_methods",
    "rank_range",
    "select",
    "topk",
]
