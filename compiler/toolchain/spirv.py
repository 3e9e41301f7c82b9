"""The shaders dmlc writes (their GLSL version, the SPIR-V environment) and what it checks in a
SPIR-V module, whichever compiler made it."""
from __future__ import annotations

import struct

from ..errors import ShaderCompileError

TARGET_ENV = "vulkan1.0"
# glslang builds its built-in tables, once per process, for every stage of a shader's #version:
# 4.50 adds the mesh and task stages, and its tables took 80 ms of CPU here where 4.30's took
# 35. 4.30 is the first version with compute shaders in core, and dmlc's SPIR-V is the same
# under both but for OpSource's version number (a debug annotation).
GLSL_VERSION = "#version 430"
SPIRV_MAGIC = 0x07230203
# Capabilities that need optional Vulkan features, which kp never enables.
FORBIDDEN_CAPABILITIES = {9: "Float16", 10: "Float64", 11: "Int64", 22: "Int16", 39: "Int8",
                          4433: "StorageBuffer16BitAccess",
                          4434: "UniformAndStorageBuffer16BitAccess",
                          4435: "StoragePushConstant16", 4436: "StorageInputOutput16",
                          4448: "StorageBuffer8BitAccess",
                          4449: "UniformAndStorageBuffer8BitAccess", 4450: "StoragePushConstant8"}
_OP_CAPABILITY = 17


def capabilities(spirv: bytes) -> list[int]:
    """The OpCapability operands of a SPIR-V module."""
    words = struct.unpack(f"<{len(spirv) // 4}I", spirv[:len(spirv) // 4 * 4])
    caps, i = [], 5  # the header is 5 words
    while i < len(words):
        count, opcode = words[i] >> 16, words[i] & 0xFFFF
        if count == 0:
            break
        if opcode == _OP_CAPABILITY:
            caps.append(words[i + 1])
        i += count
    return caps


def looks_like_spirv(data: bytes) -> bool:
    return (len(data) >= 20 and len(data) % 4 == 0
            and struct.unpack("<I", data[:4])[0] == SPIRV_MAGIC)


def numbered(source: str) -> str:
    return "\n".join(f"{i + 1:4d}  {line}" for i, line in enumerate(source.splitlines()))


def check_capabilities(spirv: bytes, source: str) -> bytes:
    """`spirv`, unless it declares a capability Kompute does not enable (ShaderCompileError)."""
    bad = [FORBIDDEN_CAPABILITIES[c] for c in capabilities(spirv) if c in FORBIDDEN_CAPABILITIES]
    if bad:
        raise ShaderCompileError(f"generated SPIR-V needs optional capabilities {bad}, which "
                                 f"Kompute does not enable\n--- source ---\n{numbered(source)}")
    return spirv
