"""python3 tools/pipeline_sass.py CACHE_FILE_OR_DIR OUT_DIR [NVDISASM]

The machine code (SASS) of every pipeline in an NVIDIA Vulkan pipeline cache, for kernel
tuning: Vulkan shows no SASS, but the file that `GPUARRAY_PIPELINE_CACHE=DIR` makes the
library write holds it. Seen with driver 580 on the H100 (2026-11-23): after wgpu's header,
the file is a run of zstd frames, each an `NVuc` record whose instructions (Hopper, 16
bytes each) start at byte 0x198 and end at the first section offset past it in the table
of 32-byte entries from byte 0x28.

A directory (the value of GPUARRAY_PIPELINE_CACHE) stands for its largest file: the
directory can hold more than one (wgpu writes the cache through a temporary file).

Writes OUT_DIR/kNN.sass per pipeline and prints, per pipeline, its instruction count, the
highest register it names (about the registers a lane holds: occupancy) and the count of
the instructions that tell kernels apart and show loops left as loops (one ATOMS or SHFL
where the source makes one in each of sixteen steps).

Needs the `zstandard` module and nvdisasm: the third argument, or Triton's copy (the
PyTorch wheels bring Triton: triton/backends/nvidia/bin/nvdisasm), found by import.
"""
import os
import re
import struct
import subprocess
import sys

import zstandard

MAGIC = b"\x28\xb5\x2f\xfd"
KEYS = ("VOTE", "ATOMS", "SHFL", "LDG", "STG", "LDS", "STS", "LDL", "STL", "BAR.SYNC", "BSSY")


def nvdisasm():
    if len(sys.argv) > 3:
        return sys.argv[3]
    import triton
    return os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "nvdisasm")


def records(data):
    """Every zstd frame of the cache that decompresses to an NVuc record."""
    i = data.find(MAGIC)
    while i >= 0:
        try:
            rec = zstandard.ZstdDecompressor().decompressobj().decompress(data[i:])
            if rec.startswith(b"NVDANVVM"):
                yield rec
        except zstandard.ZstdError:
            pass
        i = data.find(MAGIC, i + 4)


def code(rec):
    """The instructions of one record: from 0x198 to the next section offset."""
    start = 0x198
    offsets = [struct.unpack_from("<IIQ", rec, e)[2] for e in range(0x28, start, 0x20)]
    end = min([o for o in offsets if start < o <= len(rec)], default=len(rec))
    return rec[start:start + (end - start) // 16 * 16]


def main():
    cache, out = sys.argv[1], sys.argv[2]
    if os.path.isdir(cache):
        files = [os.path.join(cache, f) for f in os.listdir(cache)]
        cache = max(files, key=os.path.getsize)
    os.makedirs(out, exist_ok=True)
    tool = nvdisasm()
    data = open(cache, "rb").read()
    for k, rec in enumerate(records(data)):
        raw = os.path.join(out, f"k{k:02d}.bin")
        open(raw, "wb").write(code(rec))
        r = subprocess.run([tool, "-b", "SM90", raw], capture_output=True, text=True)
        text = r.stdout + r.stderr
        open(os.path.join(out, f"k{k:02d}.sass"), "w").write(text)
        lines = [l for l in text.splitlines() if re.search(r"/\*[0-9a-f]{4}\*/", l)]
        regs = [int(x) for x in re.findall(r"\bR(\d+)\b", text)]
        counts = " ".join(f"{key} {sum(key in l for l in lines)}" for key in KEYS)
        print(f"k{k:02d}: {len(lines)} instructions, max R{max(regs, default=0)}; {counts}")


if __name__ == "__main__":
    main()
