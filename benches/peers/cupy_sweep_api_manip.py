"""`--sweep api_manip`: concatenate (4 x 16M f32, 4096 x 4096 each, along axis 0 and 1),
stack, pad (reflect, 8192 x 8192 f32 by 16 each side), flip and roll (64M f32). CuPy's
flip is a view (negative strides): the row makes it contiguous, the work gpuarray's flip
does. Bytes: read + written."""
import cupy as cp


def run(case):
    n = 1 << 26
    rng = cp.random.default_rng(7)
    x = rng.random(n, dtype=cp.float32)
    c = cp.empty_like(x)
    case("manip_copy_f32_64M", lambda: cp.copyto(c, x), byte=8 * n)
    parts = [rng.random((4096, 4096), dtype=cp.float32) for _ in range(4)]
    joined = 8 * 4 * 4096 * 4096
    case("concatenate_axis0_4x16M_f32", lambda: cp.concatenate(parts, axis=0), byte=joined)
    case("concatenate_axis1_4x16M_f32", lambda: cp.concatenate(parts, axis=1), byte=joined)
    case("stack_4x16M_f32", lambda: cp.stack(parts, axis=0), byte=joined)
    img = rng.random((8192, 8192), dtype=cp.float32)
    padded = 4 * (8192 * 8192 + 8224 * 8224)
    case("pad_reflect_8192_f32", lambda: cp.pad(img, 16, mode="reflect"), byte=padded)
    case("flip_64M_f32", lambda: cp.ascontiguousarray(cp.flip(x, 0)), byte=8 * n)
    case("roll_64M_f32", lambda: cp.roll(x, 12345, axis=0), byte=8 * n)
