"""A small transformer block forward, a few steps: the PyTorch program whose timeline (PyTorch profiler trace) and
Nsight Compute report scripts/gpu_check.sh records together, a (timeline, kernel report) pair of one program for
``kernelscope timeline TRACE --kernels REPORT``.

The block is written out (no fused fast path): pre-norm LayerNorm, QKV projection, scaled-dot-product attention
(causal), output projection and residual, LayerNorm, MLP (Linear, GELU, Linear) and residual. Each timed step is an
NVTX push/pop range named ``step`` (``ncu --nvtx --nvtx-include step/`` profiles one step's kernels), after
``--warmup`` untimed steps (cuBLAS heuristics, allocator).

    python scripts/torch_block.py [--steps 3] [--warmup 1] [--batch 8] [--seq 512] [--dim 1024] [--heads 16]
                                  [--dtype bf16] [--trace FILE.json]

``--trace FILE`` records the timed steps with ``torch.profiler`` itself (CPU and CUDA activities) and exports a
Chrome trace; ``kernelscope profile --timeline`` records the whole run instead. Exit status 2 without a CUDA GPU.
"""

from __future__ import annotations

import argparse
import sys
import time


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=3, help="timed forward steps (default 3)")
    p.add_argument("--warmup", type=int, default=1, help="untimed forward steps first (default 1)")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq", type=int, default=512)
    p.add_argument("--dim", type=int, default=1024)
    p.add_argument("--heads", type=int, default=16)
    p.add_argument("--dtype", choices=("bf16", "fp16", "fp32"), default="bf16")
    p.add_argument("--trace", metavar="FILE", help="export a torch.profiler Chrome trace of the timed steps")
    args = p.parse_args(argv)
    if args.steps < 1 or args.warmup < 0:
        p.error("--steps must be at least 1 and --warmup at least 0")
    return args


def build_block(torch, dim: int, heads: int):  # type: ignore[no-untyped-def]
    """The transformer block as an ``nn.Module`` class instance (created here: torch is imported lazily)."""
    nn = torch.nn
    functional = torch.nn.functional

    class Block(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.heads = heads
            self.norm1 = nn.LayerNorm(dim)
            self.qkv = nn.Linear(dim, 3 * dim)
            self.proj = nn.Linear(dim, dim)
            self.norm2 = nn.LayerNorm(dim)
            self.fc1 = nn.Linear(dim, 4 * dim)
            self.fc2 = nn.Linear(4 * dim, dim)

        def forward(self, x):  # type: ignore[no-untyped-def]
            b, s, d = x.shape
            q, k, v = self.qkv(self.norm1(x)).view(b, s, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
            attn = functional.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(attn.transpose(1, 2).reshape(b, s, d))
            return x + self.fc2(functional.gelu(self.fc1(self.norm2(x))))

    return Block()


def main(argv: list[str] | None = None) -> int:
    args = _arguments(argv)
    import torch

    if not torch.cuda.is_available():
        print("torch_block: torch.cuda.is_available() is False: no CUDA GPU to run on", file=sys.stderr)
        return 2
    dtype = {"bf16": torch.bfloat16, "fp16": torch.float16, "fp32": torch.float32}[args.dtype]
    torch.manual_seed(0)
    block = build_block(torch, args.dim, args.heads).to("cuda", dtype).eval()
    x = torch.randn(args.batch, args.seq, args.dim, device="cuda", dtype=dtype)
    with torch.inference_mode():
        for _ in range(args.warmup):
            block(x)
        torch.cuda.synchronize()
        prof = None
        if args.trace:
            from torch.profiler import ProfilerActivity, profile

            prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
            prof.start()
        start = time.perf_counter()
        for _ in range(args.steps):
            torch.cuda.nvtx.range_push("step")
            y = block(x)
            torch.cuda.nvtx.range_pop()
        torch.cuda.synchronize()
        elapsed = time.perf_counter() - start
        if prof is not None:
            prof.stop()
            prof.export_chrome_trace(args.trace)
    print(f"torch_block: {args.steps} steps of batch {args.batch} x seq {args.seq} x dim {args.dim} ({args.dtype}) on "
          f"{torch.cuda.get_device_name()}: {elapsed / max(args.steps, 1) * 1e3:.3f} ms/step, "
          f"mean |y| {y.float().abs().mean().item():.4f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
