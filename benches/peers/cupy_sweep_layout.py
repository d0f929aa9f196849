"""`--sweep layout`: transposed and permuted operands, reductions over every axis subset,
var/std and argmax/argmin, all f32, the rows of bench_table's sweep_layout.rs (same names,
same bytes moved)."""
import itertools
import cupy as cp

N = 1 << 26
TRANSPOSES = [(4096, 4096), (8192, 8192), (8191, 4097), (1000, 30000)]
SHAPE3 = (256, 512, 384)
SHAPE4 = (64, 96, 128, 80)
PERMS3 = [(0, 2, 1), (1, 0, 2), (2, 1, 0)]
PERMS4 = [(0, 2, 1, 3), (0, 1, 3, 2), (3, 2, 1, 0)]
ARG2 = (4099, 8191)
ARG3 = (255, 513, 383)


def dims(shape):
    return "x".join(str(e) for e in shape)


def digits(v):
    return "".join(str(d) for d in v)


def run(case):
    rng = cp.random.default_rng(7)

    def rand(shape):
        return rng.random(shape, dtype=cp.float32)

    a = rand(N)
    c = cp.empty_like(a)
    case("copy_f32_64M", lambda: cp.copyto(c, a), byte=8 * N)
    del c

    def permuted(shape, perm, add, copy):
        src = [0] * len(shape)
        for d, p in enumerate(perm):
            src[p] = shape[d]
        x = rand(tuple(src))
        y = rand(shape)
        n = y.size
        suffix = f"f32_{dims(shape)}"
        case(f"{add}_{suffix}", lambda: x.transpose(perm) + y, byte=12 * n)
        case(f"{copy}_{suffix}", lambda: cp.ascontiguousarray(x.transpose(perm)), byte=8 * n)

    for shape in TRANSPOSES:
        permuted(shape, (1, 0), "transpose_add", "transpose_copy")
    for shape, perms in ((SHAPE3, PERMS3), (SHAPE4, PERMS4)):
        for perm in perms:
            permuted(shape, perm, f"add_perm{digits(perm)}", f"copy_perm{digits(perm)}")

    for shape in (SHAPE3, SHAPE4):
        x = rand(shape)
        for k in range(1, len(shape) + 1):
            for axes in itertools.combinations(range(len(shape)), k):
                outs = 1
                for d in range(len(shape)):
                    if d not in axes:
                        outs *= shape[d]
                case(f"sum_axes{digits(axes)}_f32_{dims(shape)}",
                     lambda axes=axes: x.sum(axis=axes), byte=4 * (x.size + outs))

    x = rand(SHAPE3)
    for k in range(3):
        byte = 4 * (x.size + x.size // SHAPE3[k])
        suffix = f"axis{k}_f32_{dims(SHAPE3)}"
        case(f"var_{suffix}", lambda k=k: x.var(axis=k), byte=byte)
        case(f"std_{suffix}", lambda k=k: x.std(axis=k), byte=byte)

    case("argmax_f32_64M", lambda: cp.argmax(a), byte=4 * N + 4)
    case("argmin_f32_64M", lambda: cp.argmin(a), byte=4 * N + 4)
    del a
    for shape in (ARG2, ARG3):
        x = rand(shape)
        for k in range(len(shape)):
            byte = 4 * (x.size + x.size // shape[k])
            suffix = f"axis{k}_f32_{dims(shape)}"
            case(f"argmax_{suffix}", lambda k=k: cp.argmax(x, axis=k), byte=byte)
            case(f"argmin_{suffix}", lambda k=k: cp.argmin(x, axis=k), byte=byte)
