"""kp 0.9.0 (Kompute), the Vulkan backend's binding: its source, dmlc's patch, and its build.

PyPI has only kp's sdist (no wheels), whose metadata pins `numpy<2.0.0`; its binding is
pybind11 2.13, which finds numpy's C API at run time and supports numpy 2. dmlc builds the
binding itself, two ways, from the same patched source:
- `pip install .` (setup.py): into dmlc's own wheel as `dmlc.runtime.kompute.kp`, against the
  system's Vulkan headers and loader, with fmt header-only from the cmeel-fmt wheel (a build
  requirement) and pybind11 from PyPI: nothing to install but the Vulkan SDK, CMake and a C++
  compiler, and no requirement on numpy beyond dmlc's own;
- `make install` (tools/kp_wheel.py): as the wheel `kp 0.9.0+dmlc7` in the development venv.

dmlc's patches to kp's source (PATCHES, small enough to offer upstream):
- Portability: since Vulkan loader 1.3.216 a portability driver (MoltenVK: macOS) is listed only
  to an instance that enables VK_KHR_portability_enumeration with
  VK_INSTANCE_CREATE_ENUMERATE_PORTABILITY_BIT_KHR, and a device that lists
  VK_KHR_portability_subset must have it enabled. kp 0.9.0 does neither, and its Python API
  reaches neither, so Manager::createInstance asks for the enumeration where the loader offers it
  and Manager::createDevice enables the subset where the device lists it.
- The hot path (no Vulkan object per call): `Tensor.view(offset, size)`, a tensor of `size`
  elements at element `offset` of another's buffers (bound, copied and synced at its offset; it
  owns nothing), so the runtime suballocates tensors from a few large buffers;
  `Algorithm.rebind(tensors, workgroup, push)`, which writes the algorithm's descriptor set
  for other tensors and sets its grid and push constants, so one pipeline serves every buffer
  set and size of a kernel; and command pools made with RESET_COMMAND_BUFFER, so a sequence may
  be recorded again (Vulkan forbids re-beginning a command buffer of a pool without it);
  `Sequence.submit()`, the pre-recorded sequence submitted without waiting (kp's C++
  evalAsync(): its Python eval_async() without an operation is bound to eval(), which waits),
  so the host prepares the next call while the device runs this one; and ordered submissions
  (`kp.ordered_submissions`): a dispatch and an upload begin with a global memory barrier
  after every transfer and dispatch submitted before them, where kp orders a dispatch after
  the uploads of its own tensors only, so a call is submitted without waiting for the last;
  and `OpTensorCopyRuns(source, target, offset, run, sizes, strides)`, copies of runs of bytes
  between two tensors in one vkCmdCopyBuffer (its regions made in C++, each checked against
  both tensors; tensors that share memory refused), after a barrier as above, with a global
  barrier before downloads too, so a copy or slice of a view runs as copies of its contiguous
  runs (family/runs.py, plan.PlanCopy).
Everything else is kp's, unchanged. Each edit must apply exactly once, or the build stops.

This file is imported by setup.py, so it uses the standard library only.
"""
from __future__ import annotations

import ctypes.util
import hashlib
import os
import pathlib
import platform
import shutil
import subprocess
import sys
import tarfile
import urllib.request
from collections.abc import Mapping

KP = "0.9.0"
SDIST_URL = ("https://files.pythonhosted.org/packages/1b/d5/"
             "34b557d8ce330fade0aa2e934d6a6871b02bbc6ef674abb153b4c1d0cdd0/kp-0.9.0.tar.gz")
SDIST_SHA256 = "98e583dc6e9731ff6d7a3e3317817e4d93f7b2945929619e29a56325db279949"
SDIST_ENV = "DMLC_KP_SDIST"  # a local kp-0.9.0.tar.gz instead of the download (offline builds)

INSTANCE = """
    std::vector<const char*> applicationExtensions;
"""
DEVICE = """    vk::DeviceCreateInfo deviceCreateInfo(vk::DeviceCreateFlags(),
"""
def barrier(indent: int, access: tuple[str, ...], stage: str) -> str:
    """C++ that records a global memory barrier after every transfer and compute write before it
    (in the command buffer, or submitted earlier to the queue) for the `access` (vk::AccessFlagBits
    names) of `stage` (a vk::PipelineStageFlagBits name): what orders dmlc's submissions."""
    pad = " " * indent
    flags = " | ".join(f"vk::AccessFlagBits::e{a}" for a in access)
    return (f"{pad}vk::MemoryBarrier memoryBarrier(\n"
            f"{pad}  vk::AccessFlagBits::eTransferWrite | vk::AccessFlagBits::eShaderWrite,\n"
            f"{pad}  {flags});\n"
            f"{pad}commandBuffer.pipelineBarrier(vk::PipelineStageFlagBits::eTransfer |\n"
            f"{pad}                                vk::PipelineStageFlagBits::eComputeShader,\n"
            f"{pad}                              vk::PipelineStageFlagBits::e{stage},\n"
            f"{pad}                              vk::DependencyFlags(),\n"
            f"{pad}                              memoryBarrier,\n"
            f"{pad}                              nullptr,\n"
            f"{pad}                              nullptr);\n")


PATCHES = {"src/Manager.cpp": [(INSTANCE, INSTANCE + """
    // dmlc: portability drivers (MoltenVK) are listed only to an instance that asks
    vk::InstanceCreateFlags instanceFlags;
    for (const vk::ExtensionProperties& ext :
         vk::enumerateInstanceExtensionProperties()) {
        std::string name(ext.extensionName.data());
        if (name == VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME) {
            applicationExtensions.push_back(
              VK_KHR_PORTABILITY_ENUMERATION_EXTENSION_NAME);
            instanceFlags |= vk::InstanceCreateFlagBits::eEnumeratePortabilityKHR;
        } else if (name == VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME) {
            // what VK_KHR_portability_subset needs on a Vulkan 1.0 instance
            applicationExtensions.push_back(
              VK_KHR_GET_PHYSICAL_DEVICE_PROPERTIES_2_EXTENSION_NAME);
        }
    }
"""), ("""    computeInstanceCreateInfo.pApplicationInfo = &applicationInfo;
""", """    computeInstanceCreateInfo.pApplicationInfo = &applicationInfo;
    computeInstanceCreateInfo.flags = instanceFlags;  // dmlc: portability
"""), (DEVICE, """    // dmlc: a device that lists VK_KHR_portability_subset must have it enabled
    if (uniqueExtensionNames.count("VK_KHR_portability_subset") != 0 &&
        std::find(desiredExtensions.begin(), desiredExtensions.end(),
                  "VK_KHR_portability_subset") == desiredExtensions.end()) {
        validExtensions.push_back("VK_KHR_portability_subset");
    }

""" + DEVICE)],
    # the hot path: tensor views at an offset of another tensor's buffers
    "src/include/kompute/Tensor.hpp": [("""\
    vk::DescriptorBufferInfo constructDescriptorBufferInfo();
""", """    vk::DescriptorBufferInfo constructDescriptorBufferInfo();

    /**
     * dmlc: a tensor of `size` elements at element `offset` of `parent`'s
     * buffers. It owns nothing: it is bound, copied and synced at its offset,
     * its data() is its part of the parent's, and it is no longer init once
     * the parent is destroyed.
     */
    static std::shared_ptr<Tensor> view(const std::shared_ptr<Tensor>& parent,
                                        uint32_t offset,
                                        uint32_t size);

    /**
     * dmlc: throw unless every region (source byte offset, byte offset here,
     * bytes; from each tensor's own start) lies within `source` and this
     * tensor, holds bytes, and the two tensors' memory does not overlap.
     */
    void checkCopyRegions(const std::shared_ptr<Tensor>& source,
                          const std::vector<vk::BufferCopy>& regions);

    /**
     * dmlc: record one copy of those regions of `source`'s device memory into
     * this tensor's (checkCopyRegions first).
     */
    void recordCopyRegionsFrom(const vk::CommandBuffer& commandBuffer,
                               const std::shared_ptr<Tensor>& source,
                               const std::vector<vk::BufferCopy>& regions);
"""), ("""    std::shared_ptr<vk::PhysicalDevice> mPhysicalDevice;
""", """    std::shared_ptr<vk::PhysicalDevice> mPhysicalDevice;
    // dmlc: a view's tensor (that owns the buffers) and its byte offset there
    std::shared_ptr<Tensor> mParent;
    vk::DeviceSize mOffset = 0;
    Tensor(const std::shared_ptr<Tensor>& parent, uint32_t offset, uint32_t size);
""")],
    "src/Tensor.cpp": [("""\
    return this->mDevice && this->mPrimaryBuffer && this->mPrimaryMemory &&
           this->mRawData;
""", """    return this->mDevice && this->mPrimaryBuffer && this->mPrimaryMemory &&
           this->mRawData && (!this->mParent || this->mParent->isInit());
"""), ("""    vk::BufferCopy copyRegion(0, 0, bufferSize);

    KP_LOG_DEBUG("Kompute Tensor recordCopyFrom data size {}.", bufferSize);
""", """    vk::BufferCopy copyRegion(copyFromTensor->mOffset, this->mOffset, bufferSize);

    KP_LOG_DEBUG("Kompute Tensor recordCopyFrom data size {}.", bufferSize);
"""), ("""Tensor::recordCopyFromStagingToDevice(const vk::CommandBuffer& commandBuffer)
{
    vk::DeviceSize bufferSize(this->memorySize());
    vk::BufferCopy copyRegion(0, 0, bufferSize);
""", """Tensor::recordCopyFromStagingToDevice(const vk::CommandBuffer& commandBuffer)
{
    vk::DeviceSize bufferSize(this->memorySize());
    vk::BufferCopy copyRegion(this->mOffset, this->mOffset, bufferSize);
"""), ("""Tensor::recordCopyFromDeviceToStaging(const vk::CommandBuffer& commandBuffer)
{
    vk::DeviceSize bufferSize(this->memorySize());
    vk::BufferCopy copyRegion(0, 0, bufferSize);
""", """Tensor::recordCopyFromDeviceToStaging(const vk::CommandBuffer& commandBuffer)
{
    vk::DeviceSize bufferSize(this->memorySize());
    vk::BufferCopy copyRegion(this->mOffset, this->mOffset, bufferSize);
"""), ("""    bufferMemoryBarrier.size = bufferSize;
""", """    bufferMemoryBarrier.offset = this->mOffset;
    bufferMemoryBarrier.size = bufferSize;
"""), ("""                                    0, // offset
""", """                                    this->mOffset, // offset (dmlc: a view's)
"""), ("""    this->mRawData = nullptr;
    this->mSize = 0;
    this->mDataTypeMemorySize = 0;
""", """    this->mRawData = nullptr;
    this->mSize = 0;
    this->mDataTypeMemorySize = 0;

    if (this->mParent) { // dmlc: a view frees nothing (its parent owns it all)
        this->mPrimaryBuffer = nullptr;
        this->mStagingBuffer = nullptr;
        this->mPrimaryMemory = nullptr;
        this->mStagingMemory = nullptr;
        this->mParent = nullptr;
        this->mDevice = nullptr;
        return;
    }
"""), ("""vk::BufferUsageFlags
Tensor::getPrimaryBufferUsageFlags()
""", """Tensor::Tensor(const std::shared_ptr<Tensor>& parent,
               uint32_t offset,
               uint32_t size)
{
    vk::DeviceSize bytes = (vk::DeviceSize)offset * parent->mDataTypeMemorySize;
    this->mPhysicalDevice = parent->mPhysicalDevice;
    this->mDevice = parent->mDevice;
    this->mDataType = parent->mDataType;
    this->mTensorType = parent->mTensorType;
    this->mSize = size;
    this->mDataTypeMemorySize = parent->mDataTypeMemorySize;
    this->mPrimaryBuffer = parent->mPrimaryBuffer;
    this->mStagingBuffer = parent->mStagingBuffer;
    this->mPrimaryMemory = parent->mPrimaryMemory;
    this->mStagingMemory = parent->mStagingMemory;
    this->mParent = parent->mParent ? parent->mParent : parent;
    this->mOffset = parent->mOffset + bytes;
    this->mRawData = (char*)parent->mRawData + bytes;
}

void
Tensor::checkCopyRegions(const std::shared_ptr<Tensor>& source,
                         const std::vector<vk::BufferCopy>& regions)
{
    if (!this->isInit() || !source->isInit()) {
        throw std::runtime_error("Kompute copy regions of a destroyed tensor");
    }
    vk::DeviceSize from = source->memorySize(), to = this->memorySize();
    for (const vk::BufferCopy& r : regions) {
        if (r.size == 0 || r.srcOffset > from || r.size > from - r.srcOffset ||
            r.dstOffset > to || r.size > to - r.dstOffset) {
            throw std::runtime_error(
              "Kompute copy region of " + std::to_string(r.size) +
              " bytes at " + std::to_string(r.srcOffset) + " -> " +
              std::to_string(r.dstOffset) + " leaves a tensor of " +
              std::to_string(from) + " -> " + std::to_string(to) + " bytes");
        }
    }
    if (*source->mPrimaryBuffer == *this->mPrimaryBuffer &&
        source->mOffset < this->mOffset + to &&
        this->mOffset < source->mOffset + from) {
        throw std::runtime_error("Kompute copy regions between tensors that "
                                 "share memory");
    }
}

void
Tensor::recordCopyRegionsFrom(const vk::CommandBuffer& commandBuffer,
                              const std::shared_ptr<Tensor>& source,
                              const std::vector<vk::BufferCopy>& regions)
{
    std::vector<vk::BufferCopy> placed(regions);
    for (vk::BufferCopy& r : placed) {
        r.srcOffset += source->mOffset;
        r.dstOffset += this->mOffset;
    }
    commandBuffer.copyBuffer(
      *source->mPrimaryBuffer, *this->mPrimaryBuffer, placed);
}

std::shared_ptr<Tensor>
Tensor::view(const std::shared_ptr<Tensor>& parent,
             uint32_t offset,
             uint32_t size)
{
    if (!parent->isInit()) {
        throw std::runtime_error("Kompute Tensor view of a destroyed tensor");
    }
    if (parent->tensorType() != TensorTypes::eDevice || size == 0 ||
        (uint64_t)offset + size > parent->size()) {
        throw std::runtime_error(
          "Kompute Tensor view of " + std::to_string(size) + " elements at " +
          std::to_string(offset) + " does not fit a device tensor of " +
          std::to_string(parent->size()));
    }
    return std::shared_ptr<Tensor>(new Tensor(parent, offset, size));
}

vk::BufferUsageFlags
Tensor::getPrimaryBufferUsageFlags()
""")],
    # the hot path: an algorithm bound again to other tensors, grid and push constants
    "src/include/kompute/Algorithm.hpp": [("""\
    const std::vector<std::shared_ptr<Tensor>>& getTensors();
""", """    const std::vector<std::shared_ptr<Tensor>>& getTensors();

    /**
     * dmlc: write the descriptor set for other tensors (as many as before)
     * and set the grid and push constants (as many words as before), keeping
     * the pipeline. No submitted work may use the algorithm, and sequences
     * recorded with it must be recorded again before they run.
     */
    void rebind(const std::vector<std::shared_ptr<Tensor>>& tensors,
                const Workgroup& workgroup,
                const std::vector<uint32_t>& pushConstants);
""")],
    "src/Algorithm.cpp": [("""void
Algorithm::setWorkgroup(""", """void
Algorithm::rebind(const std::vector<std::shared_ptr<Tensor>>& tensors,
                  const Workgroup& workgroup,
                  const std::vector<uint32_t>& pushConstants)
{
    if (!this->isInit() || tensors.size() != this->mTensors.size()) {
        throw std::runtime_error(fmt::format(
          "Kompute Algorithm rebind with {} tensors, bound to {}",
          tensors.size(),
          this->mTensors.size()));
    }
    std::vector<vk::DescriptorBufferInfo> infos;
    for (const std::shared_ptr<Tensor>& tensor : tensors) {
        if (!tensor->isInit()) {
            throw std::runtime_error(
              "Kompute Algorithm rebind to a destroyed tensor");
        }
        infos.push_back(tensor->constructDescriptorBufferInfo());
    }
    std::vector<vk::WriteDescriptorSet> writes;
    for (size_t i = 0; i < infos.size(); i++) {
        writes.push_back(vk::WriteDescriptorSet(*this->mDescriptorSet,
                                                i,
                                                0,
                                                1,
                                                vk::DescriptorType::eStorageBuffer,
                                                nullptr,
                                                &infos[i]));
    }
    this->mDevice->updateDescriptorSets(writes, nullptr);
    this->mTensors = tensors;
    this->setWorkgroup(workgroup, 1);
    if (this->mPushConstantsSize || pushConstants.size()) {
        this->setPushConstants((void*)pushConstants.data(),
                               pushConstants.size(),
                               sizeof(uint32_t));
    }
}

void
Algorithm::setWorkgroup(""")],
    # the hot path: a sequence recorded again (the pool must allow resetting its buffer)
    "src/Sequence.cpp": [("""\
vk::CommandPoolCreateInfo commandPoolInfo(vk::CommandPoolCreateFlags(),""",
                          """vk::CommandPoolCreateInfo commandPoolInfo(
      vk::CommandPoolCreateFlagBits::eResetCommandBuffer, // dmlc: re-recording""")],
    # submissions in order without waiting: each dispatch and each upload begins with a global
    # barrier after every transfer and dispatch submitted before it (kp's per-tensor barriers
    # order a dispatch after uploads only), so a submission need not wait for the last one
    "src/OpAlgoDispatch.cpp": [("""\
    // Barrier to ensure the data is finished writing to buffer memory
    for (const std::shared_ptr<Tensor>& tensor :
         this->mAlgorithm->getTensors()) {
        tensor->recordPrimaryBufferMemoryBarrier(
          commandBuffer,
          vk::AccessFlagBits::eTransferWrite,
          vk::AccessFlagBits::eShaderRead,
          vk::PipelineStageFlagBits::eTransfer,
          vk::PipelineStageFlagBits::eComputeShader);
    }
""", """\
    // dmlc: after every transfer and dispatch before it, in this command buffer
    // or an earlier submission to the queue (reads and writes of any buffer)
""" + barrier(4, ("ShaderRead", "ShaderWrite"), "ComputeShader"))],
    "src/OpTensorSyncDevice.cpp": [("""\
    KP_LOG_DEBUG("Kompute OpTensorSyncDevice record called");
""", """\
    KP_LOG_DEBUG("Kompute OpTensorSyncDevice record called");

    // dmlc: the uploads after every transfer and dispatch submitted before
    // (which may read or write the memory they write, or write the staging
    // memory they read)
""" + barrier(4, ("TransferRead", "TransferWrite"), "Transfer"))],
    "src/OpTensorSyncLocal.cpp": [("""\
    KP_LOG_DEBUG("Kompute OpTensorSyncLocal record called");
""", """\
    KP_LOG_DEBUG("Kompute OpTensorSyncLocal record called");

    // dmlc: the downloads after every write before them, a transfer's too (a
    // copy of runs: OpTensorCopyRuns); kp's barriers below cover a shader's
""" + barrier(4, ("TransferRead",), "Transfer"))],
    "python/src/main.cpp": [("""\
PYBIND11_MODULE(kp, m)
{
""", """\
// dmlc: copies of byte regions from one tensor's device memory to another's, in
// one vkCmdCopyBuffer, after every transfer and dispatch submitted before
class OpTensorCopyRegions : public kp::OpBase
{
  public:
    OpTensorCopyRegions(std::shared_ptr<kp::Tensor> source,
                        std::shared_ptr<kp::Tensor> target,
                        std::vector<vk::BufferCopy> regions)
      : mSource(std::move(source))
      , mTarget(std::move(target))
      , mRegions(std::move(regions))
    {
        this->mTarget->checkCopyRegions(this->mSource, this->mRegions);
    }

    void record(const vk::CommandBuffer& commandBuffer) override
    {
""" + barrier(8, ("TransferRead", "TransferWrite"), "Transfer") + """\
        this->mTarget->checkCopyRegions(this->mSource, this->mRegions);
        this->mTarget->recordCopyRegionsFrom(
          commandBuffer, this->mSource, this->mRegions);
    }

    void preEval(const vk::CommandBuffer&) override {}
    void postEval(const vk::CommandBuffer&) override {}

  private:
    std::shared_ptr<kp::Tensor> mSource;
    std::shared_ptr<kp::Tensor> mTarget;
    std::vector<vk::BufferCopy> mRegions;
};

PYBIND11_MODULE(kp, m)
{
"""), ("""\
    py::class_<kp::OpAlgoDispatch,
               kp::OpBase,
               std::shared_ptr<kp::OpAlgoDispatch>>(""", """\
    py::class_<OpTensorCopyRegions,
               kp::OpBase,
               std::shared_ptr<OpTensorCopyRegions>>(
      m,
      "OpTensorCopyRuns",
      "dmlc: copy runs of `run` bytes from source's device memory into "
      "target's in one vkCmdCopyBuffer: one per index of `sizes` (row-major), "
      "read at byte offset + sum(index * strides) of source and written one "
      "after another from target's start; each must lie within both tensors, "
      "which must not overlap.")
      .def(py::init([](std::shared_ptr<kp::Tensor> source,
                       std::shared_ptr<kp::Tensor> target,
                       uint64_t offset,
                       uint64_t run,
                       const std::vector<uint64_t>& sizes,
                       const std::vector<int64_t>& strides) {
               if (sizes.size() != strides.size()) {
                   throw std::runtime_error(
                     "OpTensorCopyRuns: as many strides as sizes");
               }
               uint64_t count = 1;
               for (uint64_t n : sizes) {
                   if (n == 0 || count > (uint64_t(1) << 24) / n) {
                       throw std::runtime_error(
                         "OpTensorCopyRuns: between 1 and 2^24 runs");
                   }
                   count *= n;
               }
               std::vector<vk::BufferCopy> list;
               list.reserve(count);
               std::vector<uint64_t> index(sizes.size(), 0);
               for (uint64_t k = 0; k < count; k++) {
                   int64_t at = int64_t(offset);
                   for (size_t d = 0; d < sizes.size(); d++) {
                       at += int64_t(index[d]) * strides[d];
                   }
                   if (at < 0) {
                       throw std::runtime_error(
                         "OpTensorCopyRuns: a run before the source's start");
                   }
                   list.emplace_back(uint64_t(at), k * run, run);
                   for (size_t d = sizes.size(); d-- > 0;) {
                       if (++index[d] < sizes[d]) {
                           break;
                       }
                       index[d] = 0;
                   }
               }
               return std::make_shared<OpTensorCopyRegions>(
                 std::move(source), std::move(target), std::move(list));
           }),
           py::arg("source"),
           py::arg("target"),
           py::arg("offset"),
           py::arg("run"),
           py::arg("sizes"),
           py::arg("strides"));

    py::class_<kp::OpAlgoDispatch,
               kp::OpBase,
               std::shared_ptr<kp::OpAlgoDispatch>>("""), ("""\
#ifdef VERSION_INFO
    m.attr("__version__") = VERSION_INFO;
""", """\
    // dmlc: dispatches and uploads are ordered after all earlier submissions
    m.attr("ordered_submissions") = true;

#ifdef VERSION_INFO
    m.attr("__version__") = VERSION_INFO;
"""), ("""\
      .def("is_init", &kp::Algorithm::isInit, DOC(kp, Algorithm, isInit));
""", """      .def("is_init", &kp::Algorithm::isInit, DOC(kp, Algorithm, isInit))
      .def(
        "rebind",
        [](kp::Algorithm& self,
           const std::vector<std::shared_ptr<kp::Tensor>>& tensors,
           const kp::Workgroup& workgroup,
           const py::array_t<uint32_t, py::array::c_style | py::array::forcecast>&
             push) {
            std::vector<uint32_t> words(push.data(), push.data() + push.size());
            self.rebind(tensors, workgroup, words);
        },
        "dmlc: bind the algorithm to other tensors, grid and push constants "
        "(uint32), keeping its pipeline; record its sequences again after.",
        py::arg("tensors"),
        py::arg("workgroup"),
        py::arg("push_consts"));
"""), ("""\
      .def("clear", &kp::Sequence::clear, DOC(kp, Sequence, clear))
""", """      .def("clear", &kp::Sequence::clear, DOC(kp, Sequence, clear))
      .def(
        "submit",
        [](kp::Sequence& self) { self.evalAsync(); },
        "dmlc: submit the recorded operations and return without waiting "
        "(evalAsync(); kp's eval_async() without an operation is bound to "
        "eval(), which waits); eval_await() waits for them.")
"""), ("""      .def("destroy", &kp::Tensor::destroy, DOC(kp, Tensor, destroy));
""", """      .def("destroy", &kp::Tensor::destroy, DOC(kp, Tensor, destroy))
      .def(
        "view",
        [](const std::shared_ptr<kp::Tensor>& self,
           uint32_t offset,
           uint32_t size) { return kp::Tensor::view(self, offset, size); },
        "dmlc: a tensor of `size` elements at element `offset` of this one's "
        "buffers (owning nothing; bound, copied and synced at its offset).",
        py::arg("offset"),
        py::arg("size"));
""")]}
"""kp's source edits: file -> (exact text, replacement), each found exactly once."""


def fetch_sdist(work: pathlib.Path) -> pathlib.Path:
    """kp's sdist: $DMLC_KP_SDIST, or downloaded from PyPI's file host; its SHA-256 checked."""
    local = os.environ.get(SDIST_ENV)
    if local:
        path = pathlib.Path(local)
    else:
        path = work / f"kp-{KP}.tar.gz"
        if not path.exists():
            log(f"downloading kp {KP}'s source ({SDIST_URL})")
            with urllib.request.urlopen(SDIST_URL, timeout=120) as response:
                path.write_bytes(response.read())
    digest = hashlib.sha256(path.read_bytes()).hexdigest()
    if digest != SDIST_SHA256:
        raise SystemExit(f"{path}: SHA-256 {digest}, expected kp {KP}'s {SDIST_SHA256}")
    return path


def patched_source(work: pathlib.Path) -> pathlib.Path:
    """kp's source tree, unpacked under work and patched (PATCHES)."""
    work.mkdir(parents=True, exist_ok=True)
    tree = work / f"kp-{KP}"
    shutil.rmtree(tree, ignore_errors=True)
    safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}  # Python 3.10.12+
    with tarfile.open(fetch_sdist(work)) as archive:
        archive.extractall(work, **safe)  # type: ignore[arg-type]
    for name, edits in PATCHES.items():
        path = tree / name
        text = path.read_text()
        for old, new in edits:
            if text.count(old) != 1:
                raise SystemExit(f"kp {KP}'s {name}: expected the patched text once, found "
                                 f"{text.count(old)} (a kp other than {KP}?)")
            text = text.replace(old, new)
        path.write_text(text)
    return tree


def log(message: str) -> None:
    print(f"[dmlc build] {message}", file=sys.stderr, flush=True)


# What each platform installs for the Vulkan backend's build (docs/install.md).
HINTS = {
    "debian": "sudo apt-get install libvulkan-dev mesa-vulkan-drivers cmake g++",
    "fedora": "sudo dnf install vulkan-headers vulkan-loader-devel mesa-vulkan-drivers cmake "
              "gcc-c++",
    "darwin": "brew install molten-vk vulkan-loader vulkan-headers cmake (or the LunarG "
              "Vulkan SDK), and Xcode's command line tools",
    "windows": "the LunarG Vulkan SDK (it sets VULKAN_SDK), CMake, and Visual Studio's C++ "
               "build tools",
}


def platform_key() -> str:
    if sys.platform == "darwin":
        return "darwin"
    if sys.platform == "win32":
        return "windows"
    try:
        ids = platform.freedesktop_os_release()
    except OSError:
        return "debian"
    family = " ".join([ids.get("ID", ""), ids.get("ID_LIKE", "")])
    return "fedora" if any(n in family for n in ("fedora", "rhel", "centos")) else "debian"


def install_hint() -> str:
    return HINTS[platform_key()]


def header_dirs() -> list[pathlib.Path]:
    dirs = [pathlib.Path(os.environ["VULKAN_SDK"]) / "include"] if "VULKAN_SDK" in os.environ \
        else []
    for var in ("CPATH", "CPLUS_INCLUDE_PATH"):
        dirs += [pathlib.Path(p) for p in os.environ.get(var, "").split(os.pathsep) if p]
    return dirs + [pathlib.Path(p) for p in ("/usr/include", "/usr/local/include",
                                              "/opt/homebrew/include")]


def cmake() -> str | None:
    return shutil.which("cmake")


def missing_prerequisites() -> list[str]:
    """What the binding's build needs and this machine lacks (empty: it can build)."""
    missing = []
    if cmake() is None:
        missing.append("CMake (3.21 or newer)")
    compilers = [os.environ.get("CXX", ""), "c++", "g++", "clang++", "cl"]
    if not any(c and shutil.which(c) for c in compilers):
        missing.append("a C++ compiler")
    if not any((d / "vulkan" / "vulkan.hpp").is_file() for d in header_dirs()):
        missing.append("the Vulkan headers (vulkan/vulkan.hpp)")
    if "VULKAN_SDK" not in os.environ and ctypes.util.find_library("vulkan") is None \
            and ctypes.util.find_library("vulkan-1") is None:
        missing.append("the Vulkan loader (libvulkan)")
    return missing


def wanted(environ: Mapping[str, str]) -> bool:
    """Whether setup.py builds the binding, by $DMLC_VULKAN: auto (where missing_prerequisites
    finds nothing missing; else it says what is, and the wheel is pure Python), on (or stop
    saying what is missing), off."""
    mode = environ.get("DMLC_VULKAN", "auto").strip().lower()
    if mode not in ("auto", "on", "off"):
        raise SystemExit(f"dmlc: DMLC_VULKAN must be auto, on or off, got {mode!r}")
    if mode == "off":
        return False
    missing = missing_prerequisites()
    if not missing:
        return True
    message = f"the Vulkan backend's binding needs {', '.join(missing)}: {install_hint()}"
    if mode == "on":
        raise SystemExit(f"dmlc: DMLC_VULKAN=on, but {message}")
    log(f"not building it: {message}. This wheel runs the WebGPU backend "
        "(its webgpu extra), or the Vulkan one with an installed kp")
    return False


FMT_CONFIG = """# fmt header-only, from the cmeel-fmt wheel: the binding carries no libfmt
add_library(fmt::fmt INTERFACE IMPORTED)
set_target_properties(fmt::fmt PROPERTIES
  INTERFACE_INCLUDE_DIRECTORIES "{include}"
  INTERFACE_COMPILE_DEFINITIONS "FMT_HEADER_ONLY=1")
set(fmt_FOUND TRUE)
"""


def fmt_dir(build: pathlib.Path) -> str | None:
    """A CMake package folder declaring fmt::fmt header-only from cmeel-fmt, where installed
    (else CMake's find_package(fmt) looks for a system fmt: vcpkg's on Windows)."""
    import importlib.metadata
    try:
        include = importlib.metadata.distribution("cmeel-fmt").locate_file(
            "cmeel.prefix/include")
    except importlib.metadata.PackageNotFoundError:
        return None
    folder = build / "fmt-header-only"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "fmt-config.cmake").write_text(
        FMT_CONFIG.format(include=pathlib.Path(str(include)).as_posix()))
    return str(folder)


def build_binding(build: pathlib.Path, out_dir: pathlib.Path, jobs: int | None = None) \
        -> pathlib.Path:
    """Compile the patched kp's Python module into out_dir (its file name is pybind11's:
    kp.cpython-311-x86_64-linux-gnu.so and the like); returns its path."""
    import pybind11  # a build requirement (pyproject.toml)
    source = patched_source(build / "source")
    work = build / "cmake"
    args = [f"-DCMAKE_LIBRARY_OUTPUT_DIRECTORY={out_dir}", "-DCMAKE_BUILD_TYPE=Release",
            "-DCMAKE_POSITION_INDEPENDENT_CODE=ON", "-DKOMPUTE_OPT_BUILD_PYTHON=ON",
            "-DKOMPUTE_OPT_LOG_LEVEL=Off", "-DKOMPUTE_OPT_USE_SPDLOG=OFF",
            "-DKOMPUTE_OPT_DISABLE_VULKAN_VERSION_CHECK=ON", "-DKOMPUTE_OPT_INSTALL=OFF",
            "-DKOMPUTE_OPT_USE_BUILT_IN_VULKAN_HEADER=OFF",
            "-DKOMPUTE_OPT_USE_BUILT_IN_FMT=OFF", "-DKOMPUTE_OPT_USE_BUILT_IN_PYBIND11=OFF",
            f"-Dpybind11_DIR={pybind11.get_cmake_dir()}", f"-DPYTHON_EXECUTABLE={sys.executable}",
            f'-DCMAKE_CXX_FLAGS=-DVERSION_INFO=\\"{KP}\\"']  # kp's setup.py sets it so
    fmt = fmt_dir(build)
    if fmt:
        args.append(f"-Dfmt_DIR={fmt}")
    for key in ("RELEASE", "DEBUG", "RELWITHDEBINFO", "MINSIZEREL"):  # multi-config (MSVC)
        args.append(f"-DCMAKE_LIBRARY_OUTPUT_DIRECTORY_{key}={out_dir}")
    tool = cmake() or "cmake"
    log(f"building kp {KP}'s binding (with dmlc's patches) with {tool}")
    subprocess.run([tool, "-S", str(source), "-B", str(work), *args], check=True,
                   stdout=sys.stderr)
    subprocess.run([tool, "--build", str(work), "--config", "Release", "--target", "kp",
                    "--parallel", str(jobs or os.cpu_count() or 2)], check=True,
                   stdout=sys.stderr)
    built = [p for p in out_dir.iterdir() if p.name.startswith("kp.") and
             p.suffix in (".so", ".pyd", ".dylib")]
    if len(built) != 1:
        raise SystemExit(f"kp's build left {[p.name for p in built]} in {out_dir}, "
                         "expected one Python module")
    return built[0]


def main(argv: list[str]) -> int:
    """`python tools/kompute.py check`: what this machine lacks for the binding's build, and
    how its platform gets it (exit 1 where something is missing)."""
    if argv != ["check"]:
        print("usage: python tools/kompute.py check", file=sys.stderr)
        return 2
    missing = missing_prerequisites()
    if missing:
        log(f"missing for the Vulkan backend's build: {', '.join(missing)}")
        log(f"on this platform ({platform_key()}): {install_hint()}")
        return 1
    log("CMake, a C++ compiler, the Vulkan headers and loader: found")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
