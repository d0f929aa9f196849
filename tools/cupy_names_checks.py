# Read by tools/cupy_names.py. What compiles a spelling of tools/cupy_names_table.py that is
# not Rust as written, keyed by the spelling (one alternative between " / "): Rust
# statements, in a block where `x` is an `Array<X>` of the row's dtype, `dev` a `&Device`,
# `rng` a `&mut Generator`, `pool` a `&MemoryPool`, and `any()` a value of any type.
# A key the table no longer has fails the generator: update it with the table.
CHECKS = {
    "gpuarray::dist::init()": "let _ = gpuarray::dist::init();",
    "Comm::with_device(&world, dev)": "let world: mpi::topology::SimpleCommunicator = any(); let _ = gpuarray::dist::Comm::with_device(&world, dev.clone());",
    "comm.allreduce(&x, op)": "let comm: &gpuarray::dist::Comm = any(); let _ = comm.allreduce(&x, gpuarray::dist::ReduceOp::Sum);",
    "comm.reduce(&x, op, root)": "let comm: &gpuarray::dist::Comm = any(); let _ = comm.reduce(&x, gpuarray::dist::ReduceOp::Max, 0);",
    "comm.broadcast(Some(&x), root)": "let comm: &gpuarray::dist::Comm = any(); let _ = comm.broadcast(Some(&x), 0);",
    "comm.allgather(&x, axis)": "let comm: &gpuarray::dist::Comm = any(); let _ = comm.allgather(&x, 0);",
    "comm.gather(&x, axis, root)": "let comm: &gpuarray::dist::Comm = any(); let _ = comm.gather(&x, 0, 0);",
    "comm.scatter(Some(&x), axis, root)": "let comm: &gpuarray::dist::Comm = any(); let _ = comm.scatter(Some(&x), 0, 0);",
    "comm.alltoall(&x, axis)": "let comm: &gpuarray::dist::Comm = any(); let _ = comm.alltoall(&x, 0);",
    "comm.reduce_scatter(&x, op)": "let comm: &gpuarray::dist::Comm = any(); let _ = comm.reduce_scatter(&x, gpuarray::dist::ReduceOp::Sum);",
    "comm.send(&x, peer, tag)": "let comm: &gpuarray::dist::Comm = any(); let _ = comm.send(&x, 1, 0);",
    "comm.recv::<T>(peer, tag)": "let comm: &gpuarray::dist::Comm = any(); let _ = comm.recv::<X>(0, 0);",
    "comm.isend(&x, peer, tag)": "let comm: &gpuarray::dist::Comm = any(); let _ = comm.isend(&x, 1, 0).and_then(|r| r.wait());",
    "comm.irecv::<T>(peer, tag)": "let comm: &gpuarray::dist::Comm = any(); let _ = comm.irecv::<X>(0, 0).and_then(|r| r.wait());",
    "comm.barrier()": "let comm: &gpuarray::dist::Comm = any(); let _ = comm.barrier();",
    "Complex<f32>": "let _ = dev.zeros::<Complex<f32>>([1]);",
    "Array::<Complex<f32>>::complex(&re, &im)":
        "let (re, im): (Array<f32>, Array<f32>) = (any(), any()); let _ = Array::<Complex<f32>>::complex(&re, &im);",
    "Complex<f64>": "let _ = dev.zeros::<Complex<f64>>([1]);",
    "x.ldexp(&n)": "let n: Array<i32> = any(); let _ = x.ldexp(&n);",
    "x.ldexp_scalar(n)": "let _ = x.ldexp_scalar(3);",
    "dev.from_fn::<T, N>(shape, |[i, j]| ...)":
        "let _ = dev.from_fn::<f32, 2>([2, 3], |[i, j]| i * 3.0 + j);",
    "Array::hstack(..)": "let _ = Array::hstack(&[&x, &x]);",
    "Array::vstack(..)": "let _ = Array::vstack(&[&x, &x]);",
    "Array::dstack(..)": "let _ = Array::dstack(&[&x, &x]);",
    "x.pad(widths, PadMode::..)": "let _ = x.pad(&[(1, 2)], PadMode::Constant(0.0));",
    "x.slice(..)": "let _ = x.slice([Slice::from(1..), Slice::from(..).step(2)]);",
    "x.slice(..)?.assign(&v)": "let v: Array<X> = any(); let _ = x.slice([Slice::from(1..)])?.assign(&v);",
    "x.take_mode(&idx, axis, IndexMode::..)":
        "let idx: Array<i32> = any(); let _ = x.take_mode(&idx, 0, IndexMode::Wrap);",
    "x.scatter_max(..)": "let idx: Array<i32> = any(); let _ = x.scatter_max(0, &idx, &x);",
    "x.scatter_min(..)": "let idx: Array<i32> = any(); let _ = x.scatter_min(0, &idx, &x);",
    "Array::ravel_multi_index(&[&i, &j], &dims, IndexMode::..)":
        "let i: Array<i32> = any(); let _ = Array::ravel_multi_index(&[&i, &i], &[2, 3], IndexMode::Clip);",
    "a += &b": "let mut a: Array<X> = any(); a += &x;",
    "x.top_k(k, ..)": "let _ = x.top_k(3, -1, true);",
    "gpuarray::nn": "let _ = gpuarray::nn::conv1d::<f32>; let _ = gpuarray::nn::conv2d::<f32>;",
    "rng.choice_weighted(..)": "let _ = rng.choice_weighted(&x, 5, false);",
    "rng.choice_from(..)": "let _ = rng.choice_from(&x, 5, true);",
    "ElementwiseKernel::new(..)":
        'let _ = ElementwiseKernel::new(dev, "T x, T y", "T z", "z = (x - y) * (x - y)", "squared_diff");',
    "ReductionKernel::new(..)":
        'let _ = ReductionKernel::new(dev, "T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm");',
    "RawKernel::new(..)": 'let _ = RawKernel::new(dev, "@compute @workgroup_size(1) fn f() {}", "f");',
    "gpuarray::fuse(&dev, |[x, y]| ..)": "let _ = gpuarray::fuse(dev, |[x, y]| (x - y) * (x - y));",
    "e.elapsed_ms(..)": "let e = dev.record_event()?; let _ = e.elapsed_ms(&dev.record_event()?);",
    "gpuarray::profile::benchmark(..)": 'let _ = gpuarray::profile::benchmark(dev, "name", || Ok(()), 100);',
    "dev.from_ndarray(&a)": "let a = ndarray::Array2::<f32>::zeros((2, 3)); let _ = dev.from_ndarray(&a);",
    "x.split_at(&idx, axis)": "let idx = vec![1usize]; let _ = x.split_at(&idx, axis);",
    "x.insert(&idx, &v, axis)":
        "let idx = vec![1isize]; let v: Array<X> = any(); let _ = x.insert(&idx, &v, axis);",
    "x.delete(&idx, axis)": "let idx = vec![1isize]; let _ = x.delete(&idx, axis);",
    "dev.logspace(start, stop, num, base)": "let _ = dev.logspace::<f32>(0.0, 3.0, 4, 10.0);",
    "x.slice_axis(axis, s)": "let _ = x.slice_axis(axis, Slice::from(1..).step(2));",
}

# The dtype of `x` (and of the arrays and scalars that follow it), by the row's CuPy name;
# f32 otherwise.
DTYPES = {
    "real, imag": "Complex<f32>",
    "conj, conjugate": "Complex<f32>",
    "angle": "Complex<f32>",
    "abs (complex)": "Complex<f32>",
    "exp, log, sqrt (complex)": "Complex<f32>",
    "sin, cos, tan, sinh, cosh, tanh (complex)": "Complex<f32>",
    "mean (complex)": "Complex<f32>",
    "bitwise_and, bitwise_or, bitwise_xor": "u32",
    "invert, bitwise_not": "u32",
    "left_shift, right_shift": "u32",
    "gcd, lcm": "i32",
    "bincount": "u32",
    "Generator.integers": "i32",
}

# Names with a fixed value (where the call leaves the type open, or many types would do).
TYPED = {
    "shape": "[2usize, 3]",
    "mask": "any::<Array<bool>>()",
    "index": "any::<Array<i32>>()",
    "data": "any::<Vec<X>>()",
    "idx": "any::<Array<i64>>()",
    "perm": "any::<Vec<_>>()",
    "reps": "any::<Vec<_>>()",
    "counts": "any::<Vec<_>>()",
    "dims": "any::<Vec<_>>()",
    "axes": "any::<Vec<_>>()",
    "axis": "-1isize",
    "axis0": "0isize",
    "from": "0isize",
    "to": "-1isize",
    "axis1": "-1isize",
    "axis2": "0isize",
    "a_axes": "[1isize]",
    "b_axes": "[0isize]",
    "keepdims": "false",
    "ddof": "1usize",
    "q": "[0.25f64, 0.75]",
    "arrays": "any::<Vec<&Array<X>>>()",
    "choices": "any::<Vec<&Array<X>>>()",
    "conditions": "any::<Vec<&Array<bool>>>()",
}

# Names that stand for a scalar of the row's dtype where they are not borrowed (`&v` is an
# array of it).
SCALARS = {"v", "start", "stop", "step", "lo", "hi", "default"}
