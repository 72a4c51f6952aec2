"""prism's streaming objects fed device arrays (__cuda_array_interface__): with CuPy and PyTorch on
a GPU, the same numbers as from numpy arrays, results in the input's library, ordered on the
caller's stream, the flush's tail on the device; everywhere, the arguments checked before anything
reaches the GPU, each error naming the argument. The GPU cases skip where CuPy, PyTorch or a
device is missing (CI); the checks of the arguments run everywhere.
Run by ctest under pytest (tests/python/CMakeLists.txt) with PYTHONPATH=<build>/python."""

import unittest

import numpy as np

import prism


def _gpu_library(name):
    try:
        module = __import__(name)
        if name == "cupy":
            return module if module.cuda.runtime.getDeviceCount() > 0 else None
        return module if module.cuda.is_available() else None
    except Exception:  # not installed, or no driver or device
        return None


cupy = _gpu_library("cupy")
torch = _gpu_library("torch")


class FakeDeviceArray:
    """An object that claims to be a device array: what a library without CuPy or PyTorch hands over."""

    def __init__(self, shape, typestr="<f4", strides=None, address=4096):
        self.__cuda_array_interface__ = {"shape": shape, "typestr": typestr, "strides": strides,
                                         "data": (address, False), "version": 3}
        self.shape = shape


class DeviceArgumentsChecked(unittest.TestCase):
    def test_a_dtype_other_than_the_inputs_names_x(self):
        s = prism.Stage("gain:2", fs=1000.0, complex_input=True)
        with self.assertRaisesRegex(TypeError, r"x: a device array of float32; this stage takes complex64"):
            s.feed(FakeDeviceArray((100,)))

    def test_strided_input_names_x(self):
        s = prism.Stage("gain:2", fs=1000.0)
        with self.assertRaisesRegex(ValueError, r"x: a device array with strides \(8,\)"):
            s.feed(FakeDeviceArray((100,), strides=(8,)))

    def test_out_of_the_wrong_shape_or_type_names_out(self):
        s = prism.Spectrogram(fs=1000.0, nperseg=64, noverlap=32)
        rows = s.max_output(192)
        with self.assertRaisesRegex(ValueError, rf"out: shape \(2, 33\): the outputs need \({rows}, 33\)"):
            s.feed(FakeDeviceArray((192,)), out=FakeDeviceArray((2, 33)))
        with self.assertRaisesRegex(ValueError, rf"out: shape \({rows},\): the outputs need \({rows}, 33\)"):
            s.feed(FakeDeviceArray((192,)), out=FakeDeviceArray((rows,)))
        with self.assertRaisesRegex(TypeError, "out: a device array of complex64; the outputs are float32"):
            s.feed(FakeDeviceArray((192,)), out=FakeDeviceArray((rows, 33), typestr="<c8"))

    def test_an_array_of_another_library_needs_out(self):
        s = prism.Stage("gain:2", fs=1000.0)
        with self.assertRaisesRegex(TypeError, "x: a device array of neither CuPy nor PyTorch: pass out="):
            s.feed(FakeDeviceArray((100,)))

    def test_memory_that_is_not_on_a_device_is_refused(self):
        # The fake's address is no device memory: the GPU build says so, a build without CUDA too.
        s = prism.Stage("gain:2", fs=1000.0)
        with self.assertRaisesRegex((ValueError, RuntimeError), "host memory|without the CUDA runtime"):
            s.feed(FakeDeviceArray((100,)), out=FakeDeviceArray((100,)))

    def test_out_and_stream_are_for_device_arrays(self):
        s = prism.Stage("gain:2", fs=1000.0)
        with self.assertRaisesRegex(ValueError, "out, stream: for device arrays only"):
            s.feed(np.zeros(10, np.float32), out=np.zeros(10, np.float32))


@unittest.skipIf(cupy is None, "CuPy with a CUDA device is needed")
class WithCuPy(unittest.TestCase):
    rng = np.random.default_rng(53)

    def pieces(self, n):
        return [0, 1, 1000, 4097, n]

    def check_stage(self, make, complex_input):
        x = self.rng.standard_normal(30000).astype(np.float32)
        if complex_input:
            x = (x + 1j * self.rng.standard_normal(x.size)).astype(np.complex64)
        host, device = make(), make()
        cuts = self.pieces(x.size)
        expected = [host.feed(x[a:b]) for a, b in zip(cuts, cuts[1:])] + [host.flush()]
        stream = cupy.cuda.Stream(non_blocking=True)
        with stream:
            xd = cupy.asarray(x)
            got = [device.feed(xd[a:b]) for a, b in zip(cuts, cuts[1:])] + [device.flush()]
        for e, g in zip(expected, got):
            self.assertIsInstance(g, cupy.ndarray)
            self.assertEqual(g.shape, e.shape)
        stream.synchronize()
        for e, g in zip(expected, got):
            np.testing.assert_array_equal(cupy.asnumpy(g), e)

    def test_spectrogram_rows_on_the_device_are_the_hosts(self):
        for complex_input in (False, True):
            self.check_stage(lambda: prism.Spectrogram(fs=48000.0, window="hann", nperseg=1024, noverlap=512,
                                                       complex_input=complex_input, backend="cuda"), complex_input)

    def test_fir_and_its_tail_on_the_device_are_the_hosts(self):
        self.check_stage(lambda: prism.Stage("fir:lowpass=3000,numtaps=101,decimate=4,align=same", fs=48000.0,
                                             complex_input=True, backend="cuda"), True)

    def test_a_host_stage_takes_device_arrays_too(self):
        self.check_stage(lambda: prism.Stage("resample:up=3,down=2", fs=48000.0, complex_input=True), True)

    def test_out_is_written_and_sliced(self):
        s = prism.Spectrogram(fs=1000.0, nperseg=64, noverlap=32, backend="cuda")
        x = cupy.asarray(self.rng.standard_normal(1000).astype(np.float32))
        out = cupy.full((s.max_output(x.size) + 3, s.columns), cupy.nan, dtype=cupy.float32)
        rows = s.feed(x, out=out)
        self.assertEqual(rows.shape, (30, 33))
        self.assertTrue(bool(cupy.isfinite(rows).all()))
        self.assertTrue(bool(cupy.isnan(out[30:]).all()))
        reference = prism.Spectrogram(fs=1000.0, nperseg=64, noverlap=32, backend="cuda").feed(cupy.asnumpy(x))
        np.testing.assert_array_equal(cupy.asnumpy(rows), reference)


@unittest.skipIf(torch is None, "PyTorch with a CUDA device is needed")
class WithTorch(unittest.TestCase):
    def test_tensors_in_tensors_out_on_the_current_stream(self):
        rng = np.random.default_rng(54)
        x = (rng.standard_normal(20000) + 1j * rng.standard_normal(20000)).astype(np.complex64)
        spec = "fir:lowpass=3000,numtaps=255"
        expected = prism.Stage(spec, fs=48000.0, complex_input=True, backend="cuda").feed(x)
        s = prism.Stage(spec, fs=48000.0, complex_input=True, backend="cuda")
        stream = torch.cuda.Stream()
        with torch.cuda.stream(stream):
            xt = torch.from_numpy(x).cuda(non_blocking=True)
            y = s.feed(xt)
        self.assertIsInstance(y, torch.Tensor)
        self.assertEqual(y.dtype, torch.complex64)
        stream.synchronize()
        np.testing.assert_array_equal(y.cpu().numpy(), expected)


if __name__ == "__main__":
    unittest.main()
