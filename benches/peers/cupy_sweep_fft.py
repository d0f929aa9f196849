"""`--sweep fft`: cuFFT through cupy.fft, the same rows and byte counts (floors: one read and
one write of the data) as examples/bench_table/sweep_fft.rs: complex64 1-D 2^20, 2^22,
2^24, 2^27, 65,536 x 1,024 batched, 2-D 4096^2, 3-D 512^3, batched 1000, 3^10, 5^8, the prime
1009 and 2^20 + 1, complex128 2^24, rfft of 2^26 f32 and a 2-D rfft of 4096^2 f32. Plans
are cached by CuPy (its plan cache), so the timed calls do not plan."""
import cupy as cp


def run(case):
    n = 1 << 26
    rng = cp.random.default_rng(41)
    x = rng.random(n, dtype=cp.float32)
    c = cp.empty_like(x)
    case("copy_f32_64M", lambda: cp.copyto(c, x), byte=8 * n)
    rows = [
        ("fft_c64_1M", (1 << 20,), (0,)),
        ("fft_c64_4M", (1 << 22,), (0,)),
        ("fft_c64_16M", (1 << 24,), (0,)),
        ("fft_c64_128M", (1 << 27,), (0,)),
        ("fft_c64_65536x1024", (65536, 1024), (1,)),
        ("fft2_c64_4096x4096", (4096, 4096), (0, 1)),
        ("fftn_c64_512x512x512", (512, 512, 512), (0, 1, 2)),
        ("fft_c64_16384x1000", (16384, 1000), (1,)),
        ("fft_c64_256x59049", (256, 59049), (1,)),
        ("fft_c64_32x390625", (32, 390625), (1,)),
        ("fft_c64_16384x1009", (16384, 1009), (1,)),
        ("fft_c64_4x1048577", (4, (1 << 20) + 1), (1,)),
    ]
    for name, shape, axes in rows:
        a = cp.zeros(shape, dtype=cp.complex64)
        size = a.size
        case(name, lambda a=a, axes=axes: cp.fft.fftn(a, axes=axes), byte=16 * size)
        del a
    a = cp.zeros(1 << 24, dtype=cp.complex128)
    case("fft_c128_16M", lambda: cp.fft.fft(a), byte=32 * (1 << 24))
    del a
    case("rfft_f32_64M", lambda: cp.fft.rfft(x), byte=4 * n + 8 * (n // 2 + 1))
    r = rng.random((4096, 4096), dtype=cp.float32)
    case("rfft2_f32_4096x4096", lambda: cp.fft.rfft2(r), byte=4 * 4096 * 4096 + 8 * 4096 * 2049)
