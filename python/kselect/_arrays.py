"""Arrays in and out: which backend an array runs on, its stream, and results back
as the caller's kind of array.

- NumPy arrays (and anything np.asarray takes) run on the CPU backend.
- PyTorch tensors run where they live: CUDA tensors on the GPU, on the current
  stream of their device (torch.cuda.current_stream); CPU tensors on the CPU.
- CuPy arrays, and other objects exposing __cuda_array_interface__ or a CUDA
  __dlpack__ (viewed through CuPy, without a copy), run on the GPU on CuPy's
  current stream.
Contiguous inputs are used in place; other inputs are copied once to a contiguous
array first (the library reads a flat array).
"""
from __future__ import annotations

import math

import numpy as np

from . import _kselect

SIX_TYPES = ("float32", "float64", "int32", "int64", "uint32", "uint64")
HALF_TYPES = ("float16", "bfloat16")
# dtype.name is computed on every access; small calls look it up instead.
_DTYPE_NAMES = {np.dtype(name): name for name in SIX_TYPES + ("float16",)}


def _torch():
    import sys

    return sys.modules.get("torch")


def _cupy():
    import sys

    return sys.modules.get("cupy")


def _torch_stream(torch, device):
    """torch.cuda.current_stream(device).cuda_stream, without building the Stream object
    (a tenth of a small call's time) where torch offers the raw handle, as its own
    compiled kernels read it (torch._C._cuda_getCurrentRawStream)."""
    raw = getattr(torch._C, "_cuda_getCurrentRawStream", None)
    if raw is not None and device.index is not None:
        return raw(device.index)
    return torch.cuda.current_stream(device).cuda_stream


class Input:
    """One caller's array, ready for the extension.

    data: what the extension reads (contiguous); kind: "numpy", "torch" or "cupy";
    dtype: the NumPy dtype (np.float16 for torch.bfloat16 is not used: dtype_name
    says "bfloat16"); shape; stream: the CUDA stream handle (0 on the CPU).
    """

    def __init__(self, a):
        self.on_gpu = False
        self.stream = 0
        self.device = None
        if type(a) is np.ndarray:  # the common CPU case first: small calls pay for every check
            self._from_numpy(a)
            return
        torch = _torch()
        cupy = _cupy()
        if torch is not None and isinstance(a, torch.Tensor):
            self.kind = "torch"
            self.data = a.contiguous()
            self.device = a.device
            self.dtype_name = str(a.dtype).replace("torch.", "")
            self.shape = tuple(a.shape)
            if a.is_cuda:
                self.on_gpu = True
                self.device_id = a.device.index
                self.stream = _torch_stream(torch, a.device)
        elif cupy is not None and isinstance(a, cupy.ndarray):
            self._from_cupy(cupy, a)
        elif hasattr(a, "__cuda_array_interface__") or _is_cuda_dlpack(a):
            if cupy is None:
                try:
                    import cupy  # noqa: F811
                except ImportError:
                    raise TypeError(
                        "kselect: a CUDA array that is not a torch tensor needs CuPy to be read "
                        "(pip install cupy), or pass a torch tensor"
                    ) from None
            self._from_cupy(cupy, cupy.asarray(a))
        else:
            self._from_numpy(np.asarray(a))
            return
        self.ndim = len(self.shape)
        self.size = math.prod(self.shape)

    def _from_numpy(self, arr):
        self.kind = "numpy"
        self.data = arr if arr.flags.c_contiguous else np.ascontiguousarray(arr)
        dtype = arr.dtype
        self.dtype_name = _DTYPE_NAMES.get(dtype) or dtype.name
        self.shape = arr.shape
        self.ndim = arr.ndim
        self.size = arr.size

    def _from_cupy(self, cupy, a):
        self.kind = "cupy"
        self.data = cupy.ascontiguousarray(a)
        self.device = a.device
        self.device_id = a.device.id
        self.dtype_name = a.dtype.name
        self.shape = tuple(a.shape)
        self.on_gpu = True
        self.stream = cupy.cuda.get_current_stream().ptr

    # ---- what the extension gets ----

    def check_dtype(self, halves):
        allowed = SIX_TYPES + (HALF_TYPES if halves else ())
        if self.dtype_name not in allowed:
            extra = "" if halves else " (float16 and bfloat16 with axis= only)"
            raise TypeError(
                f"kselect: unsupported dtype {self.dtype_name}; supported: {', '.join(allowed)}{extra}"
            )

    def flat(self):
        """The data as a 1-D contiguous array (a view)."""
        return self.data if self.ndim == 1 else self.data.reshape(-1)

    def rows(self, axis):
        """The data with `axis` last, as a contiguous (m, n) array (copied once when
        axis is not already last), and the shape of the other axes."""
        axis = normalize_axis(axis, self.ndim)
        moved = self.data
        if axis != self.ndim - 1 and self.kind == "torch":
            moved = moved.movedim(axis, -1).contiguous()
        elif axis != self.ndim - 1:
            xp = _cupy() if self.kind == "cupy" else np
            moved = xp.ascontiguousarray(xp.moveaxis(moved, axis, -1))
        rest = tuple(s for i, s in enumerate(self.shape) if i != axis)
        m = int(np.prod(rest, dtype=np.int64))
        return moved.reshape(m, self.shape[axis]), rest, axis

    # ---- results made on the GPU ----

    def empty(self, shape, dtype_name=None):
        """An uninitialised array of the caller's framework on the input's GPU (its
        caching allocator), of the input's dtype unless dtype_name says otherwise."""
        dtype_name = dtype_name or self.dtype_name
        if self.kind == "torch":
            torch = _torch()
            return torch.empty(shape, dtype=getattr(torch, dtype_name), device=self.device)
        cupy = _cupy()
        with self.device:
            return cupy.empty(shape, dtype=dtype_name)

    def run_device(self, call, *args):
        """call(*args, ws=..., stream=...) by the two-phase protocol: the workspace
        bytes asked for, then allocated with the caller's framework on its device,
        and the call run on the caller's stream. The workspace is released when this
        returns; both frameworks' allocators reuse it only in stream order.

        The bytes a call needs depend only on the call and its arguments' shapes,
        dtypes and values (never on the data), so the answer is remembered: a repeated
        small call makes one trip into the extension, not two."""
        key = (call, self.device_id) + tuple(_workspace_key(a) for a in args)
        needed = _WORKSPACE_BYTES.get(key)
        if needed is None:
            needed = max(int(call(*args, ws=None, stream=self.stream)), 1)
            if len(_WORKSPACE_BYTES) >= _WORKSPACE_CACHE_SIZE:
                _WORKSPACE_BYTES.clear()
            _WORKSPACE_BYTES[key] = needed
        call(*args, ws=self.empty((needed,), "uint8"), stream=self.stream)

    def to_host(self, device_array):
        """A result made on the GPU as a NumPy array of what the extension returns for
        its dtype (bfloat16 as its uint16 bits); waits for the caller's stream."""
        if self.kind == "cupy":
            with self.device:
                return device_array.get()
        torch = _torch()
        if device_array.dtype == torch.bfloat16:
            return device_array.view(torch.int16).cpu().numpy().view(np.uint16)
        signed = signed_twin(torch, device_array.dtype)
        if signed is not None:  # torch's .numpy() refuses its unsigned types
            host = device_array.view(signed).cpu().numpy()
            return host.view(host.dtype.str.replace("i", "u"))
        return device_array.cpu().numpy()

    # ---- results back ----

    def wrap(self, host):
        """A NumPy result (array or scalar) as the caller's kind, on the caller's device."""
        host = plain(host)
        if self.kind == "numpy":
            return host
        host = np.asarray(host)
        if self.kind == "torch":
            torch = _torch()
            t = torch.from_numpy(_contiguous(host))
            return t.to(self.device) if self.on_gpu else t
        cupy = _cupy()
        with self.device:
            return cupy.asarray(host)

    def wrap_keys(self, host):
        """Keys as the extension returns them (bfloat16 as uint16 bits) in the input's dtype."""
        if self.dtype_name == "bfloat16":
            torch = _torch()
            t = torch.from_numpy(_contiguous(host).view(np.int16)).view(torch.bfloat16)
            return t.to(self.device) if self.on_gpu else t
        if self.dtype_name == "float16":
            host = np.asarray(host).view(np.float16)
        return self.wrap(host)


def signed_twin(torch, dtype):
    """The signed torch dtype of an unsigned one's width, or None: torch has few kernels
    for its unsigned types, so their tensors are moved and indexed through these views."""
    return {torch.uint32: torch.int32, torch.uint64: torch.int64}.get(dtype)


# The workspace bytes of each device call seen (Input.run_device), bounded.
_WORKSPACE_BYTES = {}
_WORKSPACE_CACHE_SIZE = 1024


def _workspace_key(arg):
    """What a workspace query can depend on in one argument: an array's shape and dtype
    (a host parameter array, like the ranks, also its values); anything else itself."""
    if isinstance(arg, np.ndarray):
        return ("host", arg.shape, arg.dtype.str, arg.tobytes())
    shape = getattr(arg, "shape", None)
    if shape is not None:
        return ("device", tuple(shape), str(arg.dtype))
    return arg


def _contiguous(host):
    """host as a C-contiguous array of the same shape (np.ascontiguousarray makes a 0-d
    array 1-d: a scalar quantile would come back with shape (1,))."""
    host = np.asarray(host)
    return np.ascontiguousarray(host).reshape(host.shape)


def plain(host):
    """An extension result with NumPy's own integer types: the extension's int64 is C's
    long long, which NumPy shows as a type distinct from np.int64 (C's long)."""
    if isinstance(host, np.ndarray) and host.dtype.kind in "iu":
        return host.view(np.dtype(host.dtype.str))
    return host


def host_keys(host, dtype_name):
    """Keys from the extension as a NumPy array to compute with: float16 viewed as
    such, bfloat16 widened to float32 (NumPy has no bfloat16)."""
    host = plain(host)
    if dtype_name == "float16":
        return host.view(np.float16)
    if dtype_name == "bfloat16":
        return (host.astype(np.uint32) << 16).view(np.float32)
    return host


def _is_cuda_dlpack(a):
    device = getattr(a, "__dlpack_device__", None)
    if device is None:
        return False
    try:
        kind, _ = device()
    except Exception:  # an object that cannot say: not a CUDA array
        return False
    return int(kind) in (2, 13)  # kDLCUDA, kDLCUDAManaged


def normalize_axis(axis, ndim):
    if not isinstance(axis, (int, np.integer)) or isinstance(axis, bool):
        raise TypeError(f"kselect: axis must be an int or None, not {type(axis).__name__}")
    if not -ndim <= axis < ndim:
        raise ValueError(f"kselect: axis {axis} is out of range for an array of {ndim} dimensions")
    return int(axis) % ndim


def device_results(x):
    """Whether x's results can be made on its GPU by the device API (a CUDA input and an
    extension built with the CUDA backend); otherwise they come back through the host."""
    return x.on_gpu and _kselect.has_device_api()


def cuda_available() -> bool:
    """True when the package has the CUDA backend and a CUDA device is usable (False
    for a CPU-only build, or without a GPU: then GPU arrays cannot be passed).

    >>> kselect.cuda_available() in (True, False)
    True
    """
    return bool(_kselect.cuda_available())
