"""The WebGPU backend: dmlc's kernels as WGSL (codegen/wgsl.py) run through wgpu-py (wgpu-native,
naga), on whatever adapter it finds: Vulkan, Metal or D3D12 (only Vulkan, on lavapipe, is
tested here).

The same runtime API as the Vulkan backend: a Device (device.py: adapter, limits, lock, the
buffer pool of runtime/pool.py over wgpu buffers), device tensors (runtime/tensor.py over
buffers.py's WgpuTensor, the backend's stand-in for a kp tensor) and an Executable
(executable.py). No module here imports kp, and only this package imports wgpu.
"""
