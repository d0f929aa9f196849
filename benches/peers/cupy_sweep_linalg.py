"""`--sweep linalg`: matrix products of many shapes and layouts (cuBLAS through cupy.matmul;
f16 with f32 accumulation as CuPy's default), and nn conv2d layers (cuDNN through PyTorch,
f32, TF32 off), named as bench_table's rows (examples/bench_table/sweep_linalg.rs says how).
"""
import cupy as cp

F32 = [
    (64, 64, 64, 1, ""), (256, 256, 256, 1, ""), (500, 500, 500, 1, ""),
    (1000, 1000, 1000, 1, ""), (1024, 1024, 1024, 1, ""), (2048, 2048, 2048, 1, ""),
    (3000, 3000, 3000, 1, ""), (4096, 4096, 4096, 1, ""), (8192, 8192, 8192, 1, ""),
    (4099, 3001, 257, 1, ""), (1, 8192, 8192, 1, ""), (8192, 1, 8192, 1, ""),
    (16384, 1, 1024, 1, ""), (7, 4096, 4096, 1, ""), (16, 4096, 4096, 1, ""),
    (64, 4096, 4096, 1, ""), (4096, 7, 4096, 1, ""), (4096, 16, 4096, 1, ""),
    (4096, 64, 4096, 1, ""), (4096, 4096, 1, 1, ""), (4096, 4096, 7, 1, ""),
    (4096, 4096, 16, 1, ""), (4096, 4096, 64, 1, ""), (256, 256, 65536, 1, ""),
    (64, 64, 262144, 1, ""), (1 << 20, 32, 32, 1, ""), (262144, 64, 64, 1, ""),
    (32, 32, 1 << 20, 1, ""),
    (16, 16, 16, 4096, ""), (32, 32, 32, 1024, ""), (64, 64, 64, 256, ""),
    (128, 128, 128, 64, ""), (512, 512, 512, 8, ""),
    (2048, 2048, 2048, 1, "tn"), (2048, 2048, 2048, 1, "nt"), (2048, 2048, 2048, 1, "tt"),
    (8192, 8192, 8192, 1, "nt"),
]
F16 = [
    (1024, 1024, 1024, 1, ""), (4096, 4096, 4096, 1, ""), (1000, 1000, 1000, 1, ""),
    (4099, 3001, 257, 1, ""), (8192, 1, 8192, 1, ""), (1, 8192, 8192, 1, ""),
    (16384, 1, 1024, 1, ""), (4096, 16, 4096, 1, ""), (1 << 20, 32, 32, 1, ""),
    (256, 256, 65536, 1, ""), (64, 64, 64, 256, ""),
    (16, 16, 16, 4096, ""), (4096, 4096, 4096, 1, "tn"), (4096, 4096, 4096, 1, "nt"),
]
F64 = [
    (256, 256, 256, 1, ""), (1000, 1000, 1000, 1, ""), (1024, 1024, 1024, 1, ""),
    (2048, 2048, 2048, 1, ""), (4096, 4096, 4096, 1, ""), (4099, 3001, 257, 1, ""),
    (4096, 64, 4096, 1, ""), (512, 512, 512, 8, ""), (2048, 2048, 2048, 1, "tn"),
]
LAYERS = [
    ("3x3", 32, 64, 64, 56, 3, 1, 1, 1), ("3x3", 1, 128, 128, 56, 3, 1, 1, 1),
    ("3x3", 64, 64, 64, 56, 3, 1, 1, 1), ("3x3", 32, 512, 512, 14, 3, 1, 1, 1),
    ("1x1", 32, 256, 256, 28, 1, 1, 1, 1), ("1x1", 1, 512, 2048, 7, 1, 1, 1, 1),
    ("1x1s2", 32, 256, 512, 56, 1, 2, 1, 1), ("depthwise", 32, 256, 256, 56, 3, 1, 1, 256),
    ("depthwise", 32, 128, 128, 56, 5, 2, 1, 128), ("grouped", 32, 256, 256, 28, 3, 1, 1, 32),
    ("strided", 32, 128, 256, 56, 3, 2, 1, 1), ("dilated", 16, 64, 64, 56, 3, 1, 2, 1),
    ("stem", 32, 3, 64, 224, 7, 2, 1, 1), ("5x5", 32, 32, 64, 28, 5, 1, 1, 1),
]


def operand(rng, dt, batch, rows, cols, t):
    shape = (batch, cols, rows) if t else (batch, rows, cols)
    x = (rng.random(shape, dtype=cp.float32) + 0.5).astype(dt)
    if t:
        x = x.transpose(0, 2, 1)
    return x[0] if batch == 1 else x


def products(case, dt, name, table):
    rng = cp.random.default_rng(3)
    for m, n, k, batch, lay in table:
        a = operand(rng, dt, batch, m, k, lay in ("tn", "tt"))
        b = operand(rng, dt, batch, k, n, lay in ("nt", "tt"))
        row = f"mm_{name}_{m}x{n}x{k}" + (f"_b{batch}" if batch > 1 else "") + (f"_{lay}" if lay else "")
        case(row, lambda a=a, b=b: cp.matmul(a, b), n_repeat=20)
        del a, b


def convs(case):
    try:
        import torch
    except ImportError as e:
        print("conv rows skipped:", e)
        return
    torch.backends.cudnn.allow_tf32 = False
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.benchmark = True
    for what, n, c, k, h, kk, s, d, g in LAYERS:
        name = f"conv_{what}_n{n}c{c}k{k}_{h}sq_{kk}x{kk}" + (f"_s{s}" if s > 1 else "") \
            + (f"_d{d}" if d > 1 else "") + (f"_g{g}" if g > 1 else "")
        x = torch.rand(n, c, h, h, device="cuda") * 2 - 1
        w = torch.rand(k, c // g, kk, kk, device="cuda") * 2 - 1
        pad = (kk - 1) * d // 2
        f = lambda x=x, w=w, s=s, pad=pad, d=d, g=g: torch.nn.functional.conv2d(
            x, w, stride=s, padding=pad, dilation=d, groups=g)
        case(name, f, n_repeat=20)


def run(case):
    products(case, cp.float32, "f32", F32)
    products(case, cp.float16, "f16", F16)
    products(case, cp.float64, "f64", F64)
    convs(case)
