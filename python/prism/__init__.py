"""prism from Python: scipy.signal's spectrogram, firwin and resample_poly with scipy's signatures,
and streaming objects (FirFilter, Spectrogram, Stage) that carry their state from one block to
the next, from numpy arrays or, on the GPU, from CuPy arrays and PyTorch tensors on the device.
The numbers are those of the prism command line and of the C++ API (docs/embedding.md).
Computation is in single precision (float32 / complex64 results), or for FirFilter with
precision="double" and a run's stages with precision=double in double (float64 /
complex128). The GIL is released while prism
computes and Ctrl-C interrupts a long call (KeyboardInterrupt). Bad parameters raise ValueError
naming the parameter.
"""

import json

import numpy as np

from . import _prism
from ._prism import FilterDesignError, UsageError

__version__ = _prism.__version__

__all__ = ["spectrogram", "firwin", "oaconvolve", "resample_poly", "FirFilter", "Spectrogram", "Stage", "open", "run",
           "UsageError", "FilterDesignError", "__version__"]

def _window_text(window):
    """scipy's window argument ('hann', ('tukey', 0.25), ('general_cosine', [0.5, 0.5]),
    ('exponential', None, 2)) as prism writes it ("tukey:0.25"); prism's parser knows every
    window of scipy.signal.get_window, its aliases and its parameters, and names what is wrong."""
    if isinstance(window, str):
        return window
    if isinstance(window, tuple) and window and isinstance(window[0], str):
        parts = [window[0]]
        for parameter in window[1:]:
            if parameter is None:
                parts.append("none")
            elif isinstance(parameter, (bool, np.bool_)):
                parts.append(str(bool(parameter)).lower())
            elif isinstance(parameter, (list, tuple, np.ndarray)):
                parts += [repr(float(value)) for value in parameter]
            else:
                parts.append(repr(float(parameter)))
        return ":".join(parts)
    raise ValueError(f"window: {window!r} is not a window: a name or a tuple (name, parameters...) "
                     "as scipy.signal.get_window takes")


def _as_float_rows(x, axis):
    """x with `axis` last, as float32 or complex64 rows: (rows, n) floats, complex flag, shape."""
    x = np.asarray(x)
    is_complex = np.iscomplexobj(x)
    moved = np.moveaxis(x, axis, -1)
    lead = moved.shape[:-1]
    n = moved.shape[-1]
    flat = np.ascontiguousarray(moved.reshape(-1, n), dtype=np.complex64 if is_complex else np.float32)
    if is_complex:
        flat = flat.view(np.float32)
    return flat, is_complex, lead


def spectrogram(x, fs=1.0, window=("tukey", 0.25), nperseg=None, noverlap=None, nfft=None,
                detrend="constant", return_onesided=True, scaling="density", axis=-1, mode="psd",
                backend="auto", *, frequency_range=None, start=None):
    """scipy.signal.spectrogram on prism: returns (f, t, Sxx) as scipy does (Sxx float32, or
    complex64 for mode 'complex').

    mode: 'psd', 'magnitude', 'complex', 'angle' or 'phase' (scipy's modes); detrend: 'constant',
    'linear' (CPU backend) or False; window: any of scipy.signal.get_window's, as scipy takes it
    (a name or a tuple of the name and parameters). Complex input, or return_onesided=False, gives
    the two-sided spectrum in scipy's order. backend: 'auto', 'cpu', 'cuda' or 'cufft'.
    prism's own: frequency_range=(lo, hi) keeps the bins from lo to hi Hz (inclusive; baseband),
    in ascending frequency (for two-sided spectra too, unlike scipy's FFT order); start=seconds
    begins at sample round(start * fs), as scipy on x[round(start * fs):] with t counted from x's
    first sample.
    """
    modes = ("psd", "magnitude", "complex", "angle", "phase")
    if mode not in modes:
        raise ValueError(f"mode: '{mode}' is not one of {', '.join(modes)}")
    if scaling not in ("density", "spectrum"):
        raise ValueError(f"scaling: '{scaling}' is not one of density, spectrum")
    if detrend is False or detrend is None:
        detrend = "none"
    elif detrend not in ("constant", "linear"):
        raise ValueError(f"detrend: {detrend!r} is not one of 'constant', 'linear', False")
    if frequency_range is not None:
        try:
            low, high = (float(v) for v in frequency_range)
        except (TypeError, ValueError):
            raise ValueError(f"frequency_range: {frequency_range!r} is not a pair (lo, hi) in Hz") from None
        frequency_range = (low, high)
    x = np.asarray(x)
    if x.ndim == 0:
        raise ValueError("x: a spectrogram needs an array of samples")
    if not return_onesided and not np.iscomplexobj(x):
        x = x.astype(np.complex64)
    first = 0
    if start is not None:
        start = float(start)
        if not np.isfinite(start) or start < 0:
            raise ValueError(f"start: {start!r} is not a number of seconds, 0 or more")
        first = int(round(start * float(fs)))
    n = x.shape[axis] - first
    if nperseg is None:
        nperseg = max(min(256, n), 1)
    nperseg = int(nperseg)
    if noverlap is None:
        noverlap = nperseg // 8
    if nfft is None:
        nfft = nperseg
    rows, is_complex, lead = _as_float_rows(x, axis)
    f, t, sxx = _prism.spectrogram(rows, is_complex, float(fs), _window_text(window), nperseg,
                                   int(noverlap), int(nfft), detrend, scaling, mode, frequency_range, first,
                                   backend)
    if mode == "complex":
        sxx = sxx.view(np.complex64)[..., 0]
    if is_complex and frequency_range is None:
        # prism centres a two-sided spectrum (fftshift); scipy keeps the FFT's order.
        f = np.fft.ifftshift(f)
        sxx = np.fft.ifftshift(sxx, axes=1)
    sxx = sxx.reshape(lead + sxx.shape[1:])
    # scipy puts the frequencies where the samples were, the times last.
    sxx = np.moveaxis(sxx, -2, axis % x.ndim)
    return f, t, sxx


def firwin(numtaps, cutoff, *, width=None, window="hamming", pass_zero=True, scale=True, fs=None):
    """scipy.signal.firwin (fs defaults to 2, as scipy's nyq=1); returns float64 taps."""
    cutoff = np.atleast_1d(np.asarray(cutoff, dtype=float)).tolist()
    pass_zero_text = str(pass_zero).lower() if isinstance(pass_zero, (bool, np.bool_)) else str(pass_zero)
    return np.asarray(_prism.firwin(int(numtaps), cutoff, None if width is None else float(width),
                                    _window_text(window), pass_zero_text, bool(scale),
                                    2.0 if fs is None else float(fs)))


def resample_poly(x, up, down, axis=0, window=None):
    """scipy.signal.resample_poly (padtype 'constant'); window: None (scipy's default Kaiser
    design) or an array of taps."""
    taps = [] if window is None else np.asarray(window, dtype=float).ravel().tolist()
    rows, is_complex, lead = _as_float_rows(x, axis)
    out = [_prism.resample_poly(row, is_complex, int(up), int(down), taps) for row in rows]
    out = np.stack(out) if out else np.zeros((0, 0), np.float32)
    if is_complex:
        out = out.view(np.complex64)
    out = out.reshape(lead + out.shape[-1:])
    return np.moveaxis(out, -1, axis)


def oaconvolve(in1, in2, mode="full", axes=None):
    """scipy.signal.oaconvolve for 1-D arrays on prism's FIR filter: the shorter array is the
    filter, the longer streams through it (overlap-save, the FFT length from prism's cost model).
    mode: 'full', 'same' (centred on in1, as scipy) or 'valid'. Returns float32, or complex64
    when either input is complex."""
    if axes not in (None, 0, -1, (0,), (-1,), [0], [-1]):
        raise ValueError(f"axes: {axes!r}: prism convolves 1-D arrays (axes None or 0)")
    a, b = np.asarray(in1), np.asarray(in2)
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"in1, in2: prism convolves 1-D arrays (got {a.ndim}-D and {b.ndim}-D)")
    if mode not in ("full", "same", "valid"):
        raise ValueError(f"mode: '{mode}' is not one of full, same, valid")
    complex_result = np.iscomplexobj(a) or np.iscomplexobj(b)
    dtype = np.complex64 if complex_result else np.float32
    if a.size == 0 or b.size == 0:
        return np.zeros(0, dtype)
    x, h = (a, b) if a.size >= b.size else (b, a)
    fir = FirFilter(h, complex_input=np.iscomplexobj(x))
    # lfilter(h, 1, x) and, with size(h) - 1 zeros after x, the whole convolution's tail.
    pad = np.zeros(h.size - 1, dtype=np.complex64 if np.iscomplexobj(x) else np.float32)
    full = np.concatenate([fir.feed(x), fir.feed(pad), fir.flush()]).astype(dtype, copy=False)
    if mode == "full":
        return full
    length = a.size if mode == "same" else x.size - h.size + 1
    start = (full.size - length) // 2
    return full[start:start + length]


class FirFilter:
    """A streaming FIR filter: filter(x) blocks give lfilter(taps, 1, x)[::decimate] of the whole
    input (align='causal') or oaconvolve(x, taps, 'same')[::decimate] once flushed (align='same').
    shift: move the input by -shift Hz before the filter (the output is then complex).
    precision: 'single' (float32 / complex64 values) or 'double' (float64 / complex128, FFTW
    double: within about 1e-15 of scipy in float64)."""

    def __init__(self, taps, *, complex_input=False, decimate=1, align="causal", shift=None, fs=1.0,
                 threads=0, precision="single"):
        self._filter = _prism.FirFilter(np.asarray(taps), bool(complex_input), int(decimate), align,
                                        None if shift is None else float(shift), float(fs), int(threads),
                                        str(precision))
        self._complex_input = bool(complex_input)
        self._double = self._filter.double_precision

    def _out(self, values):
        if not self._filter.complex_output:
            return values
        return values.view(np.complex128 if self._double else np.complex64)

    def feed(self, x):
        if self._double:
            x = np.asarray(x, dtype=np.complex128 if self._complex_input else np.float64)
            return self._out(self._filter.feed64(np.ascontiguousarray(x).view(np.float64).ravel()))
        x = np.asarray(x, dtype=np.complex64 if self._complex_input else np.float32)
        return self._out(self._filter.feed(np.ascontiguousarray(x).view(np.float32).ravel()))

    def flush(self):
        return self._out(self._filter.flush64() if self._double else self._filter.flush())

    def reset(self):
        self._filter.reset()


def _device_array(a, name):
    """a's __cuda_array_interface__, checked to be C-contiguous: (address, shape, dtype, stream)."""
    interface = a.__cuda_array_interface__
    shape = tuple(interface["shape"])
    dtype = np.dtype(interface["typestr"])
    strides = interface.get("strides")
    if strides is not None:
        expected, step = [], dtype.itemsize
        for extent in reversed(shape):
            expected.insert(0, step)
            step *= extent
        if any(extent > 1 and stride != want for extent, stride, want in zip(shape, strides, expected)):
            raise ValueError(f"{name}: a device array with strides {tuple(strides)}: prism takes C-contiguous "
                             "arrays (cupy.ascontiguousarray, tensor.contiguous())")
    return int(interface["data"][0]), shape, dtype, interface.get("stream")


def _array_library(a):
    """'cupy', 'torch' or None: the library whose array `a` is."""
    library = type(a).__module__.split(".")[0]
    return library if library in ("cupy", "torch") else None


def _device_empty(like, shape, dtype, name, handle):
    """An array of like's library on like's device, allocated on the stream `handle` that will
    write it, so that the library's memory pool does not hand it out again before that stream has
    passed the writes."""
    library = _array_library(like)
    if library == "cupy":
        import cupy
        stream = cupy.cuda.ExternalStream(handle) if handle else cupy.cuda.Stream.null
        with cupy.cuda.Device(like.device.id), stream:
            return cupy.empty(shape, dtype)
    if library == "torch":
        import torch
        stream = (torch.cuda.ExternalStream(handle, device=like.device) if handle
                  else torch.cuda.default_stream(like.device))
        with torch.cuda.stream(stream):
            return torch.empty(shape, dtype=torch.complex64 if dtype == np.complex64 else torch.float32,
                               device=like.device)
    raise TypeError(f"{name}: a device array of neither CuPy nor PyTorch: pass out=, a device array of "
                    f"{np.dtype(dtype).name} and shape {shape} (max_output(n) items)")


def _stream_handle(like, interface_stream, stream):
    """The cudaStream_t that orders the call: `stream` when given (an integer handle, or an object
    with .ptr (CuPy) or .cuda_stream (PyTorch)); else the array library's current stream; else the
    array's __cuda_array_interface__ stream; else the legacy default stream."""
    if stream is not None:
        for attribute in ("ptr", "cuda_stream"):
            if hasattr(stream, attribute):
                return int(getattr(stream, attribute))
        return int(stream)
    library = _array_library(like)
    if library == "cupy":
        import cupy
        with cupy.cuda.Device(like.device.id):
            return cupy.cuda.get_current_stream().ptr
    if library == "torch":
        import torch
        return torch.cuda.current_stream(like.device).cuda_stream
    return int(interface_stream or 0)


class Stage:
    """Any stage of prism's registry as a streaming object, as a chain names it:
    Stage('fir:lowpass=3000', fs=48000, complex_input=True). feed() returns the outputs that are
    complete (samples, or rows of a spectrogram), flush() the rest, reset() starts again.

    On the GPU (backend='cuda'): feed() also takes a device array (CuPy, PyTorch, or any object with
    __cuda_array_interface__) and returns a device array of the same library; a GPU stage reads and
    writes the device memory in place. The work is ordered on `stream` (default: the library's
    current stream) and not waited for: the result is ready for later work on that stream.
    out= gives the result's memory (a C-contiguous device array of float32, or complex64 for
    complex values, shape (max_output(n),) for samples or (max_output(n), columns) for rows); the
    result is then out[:count]."""

    def __init__(self, spec, *, fs, complex_input=False, backend="cpu"):
        self._stage = _prism.Stage(spec, float(fs), bool(complex_input), backend)
        self._complex_input = bool(complex_input)
        self._device_like = None  # the last device array fed, while its outputs are owed

    def _out(self, values):
        return values.view(np.complex64) if self._stage.complex_values else values

    @property
    def columns(self):
        """Values of one output row (a spectrogram's frequencies); 1 for samples."""
        return self._stage.values_per_item

    def max_output(self, n):
        """The most output items (rows or samples) a feed() of n samples can give."""
        return self._stage.max_output(int(n))

    def _output_dtype(self):
        return np.complex64 if self._stage.complex_values else np.float32

    def _output_shape(self, items):
        return (items, self._stage.values_per_item) if self._stage.rows else (items,)

    def _device_out(self, like, out, items, handle, name="out"):
        dtype, shape = self._output_dtype(), self._output_shape(items)
        if out is None:
            out = _device_empty(like, shape, dtype, "x", handle)
        address, out_shape, out_dtype, _ = _device_array(out, name)
        if out_dtype != dtype:
            raise TypeError(f"{name}: a device array of {out_dtype.name}; the outputs are {np.dtype(dtype).name}")
        if len(out_shape) != len(shape) or out_shape[0] < items or out_shape[1:] != shape[1:]:
            raise ValueError(f"{name}: shape {out_shape}: the outputs need {shape}, or more "
                             + ("rows" if len(shape) > 1 else "items"))
        return out, address

    def _feed_device(self, x, out, stream):
        address, shape, dtype, interface_stream = _device_array(x, "x")
        n = int(np.prod(shape, dtype=np.int64))
        want = np.complex64 if self._complex_input else np.float32
        if dtype != want:
            raise TypeError(f"x: a device array of {dtype.name}; this stage takes {np.dtype(want).name} "
                            f"(complex_input={self._complex_input})")
        handle = _stream_handle(x, interface_stream, stream)
        out, out_address = self._device_out(x, out, self._stage.max_output(n), handle)
        made = self._stage.feed_device(address, n, out_address, handle)
        self._device_like, self._stream = x, handle
        return out[:made]

    def feed(self, x, out=None, *, stream=None):
        if hasattr(x, "__cuda_array_interface__"):
            return self._feed_device(x, out, stream)
        if out is not None or stream is not None:
            raise ValueError("out, stream: for device arrays only (a numpy x gives a new numpy array)")
        self._device_like = None
        x = np.asarray(x, dtype=np.complex64 if self._complex_input else np.float32)
        return self._out(self._stage.feed(np.ascontiguousarray(x).view(np.float32).ravel()))

    def flush(self):
        """The outputs still owed, as a device array after feeds of device arrays."""
        if self._device_like is None:
            return self._out(self._stage.flush())
        like, handle = self._device_like, self._stream
        pieces, capacity = [], max(self._stage.max_output(1 << 16), 1)
        while True:
            out, address = self._device_out(like, None, capacity, handle)
            made = self._stage.flush_device(address, capacity, handle)
            if made == 0:
                break
            pieces.append(out[:made])
        if not pieces:
            return out[:0]
        if len(pieces) == 1:
            return pieces[0]
        if _array_library(like) == "torch":
            import torch
            return torch.cat(pieces)
        import cupy
        return cupy.concatenate(pieces)

    def reset(self):
        self._stage.reset()
        self._device_like = None

    def describe(self):
        return self._stage.describe()

    @property
    def output_rate(self):
        return self._stage.output_rate


class Spectrogram(Stage):
    """The spectrogram as a streaming object: feed(x) returns the rows (segments × frequencies,
    prism's order: centred for complex input; complex64 for mode 'complex') of the frames complete
    so far. frequency_range=(lo, hi) keeps the bins from lo to hi Hz."""

    def __init__(self, *, fs=1.0, window=("tukey", 0.25), nperseg=256, noverlap=None, nfft=None,
                 detrend="constant", scaling="density", mode="psd", complex_input=False,
                 backend="cpu", frequency_range=None):
        settings = [f"window={_window_text(window)}", f"nperseg={int(nperseg)}",
                    f"noverlap={int(nperseg) // 8 if noverlap is None else int(noverlap)}",
                    f"nfft={int(nperseg) if nfft is None else int(nfft)}",
                    f"detrend={'constant' if detrend == 'constant' else 'none'}",
                    f"scaling={scaling}", f"mode={mode}"]
        if frequency_range is not None:
            low, high = (float(v) for v in frequency_range)
            settings.append(f"frequency_range={low!r}:{high!r}")
        super().__init__("spectrogram:" + ",".join(settings), fs=fs, complex_input=complex_input,
                         backend=backend)

    @property
    def frequencies(self):
        return np.asarray(self._stage.frequencies)


_NUMPY_FORMATS = {"f32": np.float32, "cf32": np.complex64, "f64": np.float64, "cf64": np.complex128,
                  "i16": np.int16, "u8": np.uint8, "i8": np.int8}


def _samples_array(data, info):
    dtype = _NUMPY_FORMATS.get(info["format"])
    if dtype is None:  # complex integers: (re, im) pairs of the component type
        component = {"ci16": np.int16, "ci8": np.int8, "cu8": np.uint8}[info["format"]]
        array = np.frombuffer(data, dtype=component).reshape(-1, info["channels"], 2)
        return array.squeeze(1) if info["channels"] == 1 else array
    array = np.frombuffer(data, dtype=dtype)
    return array if info["channels"] == 1 else array.reshape(-1, info["channels"])


def _input_settings(center_frequency, gain, antenna, sdr_channel, sdr_stream_args, sdr_open_timeout):
    names = ("center_frequency", "gain", "antenna", "sdr_channel", "sdr_stream_args", "sdr_open_timeout")
    values = (center_frequency, gain, antenna, sdr_channel, sdr_stream_args, sdr_open_timeout)
    return {name: value for name, value in zip(names, values) if value is not None}


_INPUT_SETTINGS_DOC = """
    Input settings, as the command line's: center_frequency (Hz: labels any input, tunes an SDR;
    0 leaves the input's own);
    for an SDR ('sdr:driver=...') only, where any other input refuses them: gain (dB; default:
    automatic where the device has it), antenna, sdr_channel, sdr_stream_args ('KEY=VALUE,...'),
    sdr_open_timeout (seconds each driver call may take while the device opens; 0: for ever)."""


def open(input, *, format=None, rate=None, channels=1, max_samples=None, center_frequency=None,  # noqa: A001
         gain=None, antenna=None, sdr_channel=None, sdr_stream_args=None, sdr_open_timeout=None):
    info, data = _prism.open(str(input), format, None if rate is None else float(rate), int(channels),
                             _input_settings(center_frequency, gain, antenna, sdr_channel, sdr_stream_args,
                                             sdr_open_timeout),
                             max_samples)
    return info, _samples_array(data, info)


open.__doc__ = """Reads any input prism reads (a SigMF recording, a sound file, raw samples with format and
    rate, the generator 'gen:...', an SDR with max_samples): returns (info, samples), info a dict
    (format, sample_rate, channels, center_frequency, start_time, length), samples a numpy array
    in the input's own format (one column per channel).""" + _INPUT_SETTINGS_DOC


def run(input, stages=(), outputs=(), *, collect=None, format=None, rate=None, channels=1,
        max_samples=None, backend="auto", center_frequency=None, gain=None, antenna=None, sdr_channel=None,
        sdr_stream_args=None, sdr_open_timeout=None):
    if isinstance(stages, str):
        stages = [stages]
    if isinstance(outputs, str):
        outputs = [outputs]
    if collect is None:
        collect = not outputs
    summary, data, description = _prism.run(str(input), list(stages), [str(o) for o in outputs], bool(collect),
                                            format, None if rate is None else float(rate), int(channels),
                                            _input_settings(center_frequency, gain, antenna, sdr_channel,
                                                            sdr_stream_args, sdr_open_timeout),
                                            max_samples, backend)
    summary = json.loads(summary)
    if not collect:
        return summary
    if description["kind"] == "rows":
        dtype = {(False, False): np.float32, (True, False): np.complex64, (False, True): np.float64,
                 (True, True): np.complex128}[(description["complex"], description["double"])]
        items = np.frombuffer(data, dtype=dtype).reshape(-1, description["columns"])
    else:
        items = _samples_array(data, description)
    return summary, items


run.__doc__ = """Runs input -> stages -> outputs as `prism run` does: run('gen:duration=1',
    ['fir:lowpass=1e3,numtaps=101'], ['out.npy']). stages: specs as a chain writes them;
    outputs: paths (.npy, .png, .sigmf-meta, .wav, audio:). collect (default: when there are no
    outputs) also returns the last node's items: rows as a (rows, columns) float32 array, samples
    as an array. Returns the run's summary (a dict, as --summary-json writes it), or
    (summary, items) when collecting. Ctrl-C stops the run (KeyboardInterrupt).""" + _INPUT_SETTINGS_DOC
