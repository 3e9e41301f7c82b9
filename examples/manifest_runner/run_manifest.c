/* Run a dmlc program from its manifest alone: plain Vulkan through the loader, no dmlc, no kp.
 *
 *   dmlc compile prog.dml --emit manifest -o out/
 *   run_manifest out/NAME.manifest.json in0.bin in1.bin ... result.bin
 *
 * Inputs are raw files in the manifest's input order (the bytes of a C array of each input's
 * element type: numpy's `a.tofile(f)`); result.bin receives the output buffer's elements (all
 * outputs one after another for a split). Every buffer is host-visible memory for simplicity
 * (a real engine would use device-local memory and staging copies); the kernels run in order
 * with a compute-to-compute barrier between them, as the manifest says.
 *
 * Build: cc -O2 -o run_manifest run_manifest.c -lvulkan -lcjson
 */
#include <cjson/cJSON.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vulkan/vulkan.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        VkResult r_ = (call);                                                         \
        if (r_ != VK_SUCCESS) die("%s failed: VkResult %d", #call, (int)r_);          \
    } while (0)

static void die(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
#include <stdarg.h>
static void die(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fputs("run_manifest: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(1);
}

static char *read_file(const char *path, size_t *size) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *data = malloc((size_t)n + 1);
    if (!data || fread(data, 1, (size_t)n, f) != (size_t)n) die("cannot read %s", path);
    fclose(f);
    data[n] = 0;
    *size = (size_t)n;
    return data;
}

static size_t element_size(const char *type) {
    static const struct { const char *name; size_t size; } sizes[] = {
        {"float32", 4}, {"float16", 2}, {"float64", 8}, {"int8", 1}, {"int16", 2},
        {"int32", 4}, {"int64", 8}, {"uint8", 1}, {"uint16", 2}, {"uint32", 4}, {"uint64", 8}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
        if (!strcmp(type, sizes[i].name)) return sizes[i].size;
    die("unknown element type %s", type);
}

static cJSON *field(const cJSON *obj, const char *name) {
    cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, name);
    if (!v) die("manifest: missing \"%s\"", name);
    return v;
}

typedef struct {
    const char *name;
    VkBuffer buffer;
    VkDeviceMemory memory;
    VkDeviceSize size;
    void *mapped;
} Buffer;

static uint32_t memory_type(VkPhysicalDevice gpu, uint32_t bits, VkMemoryPropertyFlags want) {
    VkPhysicalDeviceMemoryProperties props;
    vkGetPhysicalDeviceMemoryProperties(gpu, &props);
    for (uint32_t i = 0; i < props.memoryTypeCount; i++)
        if ((bits & (1u << i)) && (props.memoryTypes[i].propertyFlags & want) == want) return i;
    die("no host-visible, coherent memory type");
}

static Buffer *find_buffer(Buffer *buffers, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (!strcmp(buffers[i].name, name)) return &buffers[i];
    die("manifest: no buffer \"%s\"", name);
}

int main(int argc, char **argv) {
    if (argc < 3) die("usage: run_manifest MANIFEST.json [INPUT.bin ...] OUTPUT.bin");
    size_t size;
    char *text = read_file(argv[1], &size);
    cJSON *m = cJSON_Parse(text);
    if (!m) die("%s: not JSON", argv[1]);
    if (strcmp(field(m, "format")->valuestring, "dmlc-manifest") ||
        field(m, "version")->valueint != 1)
        die("%s: not a version 1 dmlc manifest", argv[1]);
    const cJSON *inputs = field(m, "inputs"), *jbuffers = field(m, "buffers");
    const cJSON *kernels = field(m, "kernels");
    if (argc != 3 + cJSON_GetArraySize(inputs))
        die("the program takes %d inputs", cJSON_GetArraySize(inputs));
    char folder[4096];  /* SPIR-V paths are relative to the manifest */
    snprintf(folder, sizeof folder, "%s", argv[1]);
    char *slash = strrchr(folder, '/');
    if (slash) slash[1] = 0; else folder[0] = 0;

    /* Instance, the first device with a compute queue, one queue. */
    VkApplicationInfo app = {.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO,
                             .pApplicationName = "run_manifest", .apiVersion = VK_API_VERSION_1_0};
    VkInstanceCreateInfo ici = {.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO,
                                .pApplicationInfo = &app};
    VkInstance instance;
    CHECK(vkCreateInstance(&ici, NULL, &instance));
    uint32_t ngpu = 0;
    CHECK(vkEnumeratePhysicalDevices(instance, &ngpu, NULL));
    if (!ngpu) die("no Vulkan device");
    VkPhysicalDevice gpus[16];
    ngpu = ngpu > 16 ? 16 : ngpu;
    CHECK(vkEnumeratePhysicalDevices(instance, &ngpu, gpus));
    VkPhysicalDevice gpu = VK_NULL_HANDLE;
    uint32_t family = 0;
    for (uint32_t g = 0; g < ngpu && !gpu; g++) {
        VkQueueFamilyProperties families[16];
        uint32_t nf = 16;
        vkGetPhysicalDeviceQueueFamilyProperties(gpus[g], &nf, families);
        for (uint32_t f = 0; f < nf; f++)
            if (families[f].queueFlags & VK_QUEUE_COMPUTE_BIT) { gpu = gpus[g]; family = f; break; }
    }
    if (!gpu) die("no device with a compute queue");
    float priority = 1.0f;
    VkDeviceQueueCreateInfo qci = {.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO,
                                   .queueFamilyIndex = family, .queueCount = 1,
                                   .pQueuePriorities = &priority};
    VkDeviceCreateInfo dci = {.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO,
                              .queueCreateInfoCount = 1, .pQueueCreateInfos = &qci};
    VkDevice device;
    CHECK(vkCreateDevice(gpu, &dci, NULL, &device));
    VkQueue queue;
    vkGetDeviceQueue(device, family, 0, &queue);

    /* Buffers: byte_size each, filled as "initial" says. */
    int nbuf = cJSON_GetArraySize(jbuffers);
    Buffer *buffers = calloc((size_t)nbuf, sizeof *buffers);
    for (int i = 0; i < nbuf; i++) {
        const cJSON *jb = cJSON_GetArrayItem(jbuffers, i);
        Buffer *b = &buffers[i];
        b->name = field(jb, "name")->valuestring;
        b->size = (VkDeviceSize)field(jb, "byte_size")->valuedouble;
        VkBufferCreateInfo bci = {.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO, .size = b->size,
                                  .usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT,
                                  .sharingMode = VK_SHARING_MODE_EXCLUSIVE};
        CHECK(vkCreateBuffer(device, &bci, NULL, &b->buffer));
        VkMemoryRequirements req;
        vkGetBufferMemoryRequirements(device, b->buffer, &req);
        VkMemoryAllocateInfo mai = {.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO,
                                    .allocationSize = req.size,
                                    .memoryTypeIndex = memory_type(
                                        gpu, req.memoryTypeBits,
                                        VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                            VK_MEMORY_PROPERTY_HOST_COHERENT_BIT)};
        CHECK(vkAllocateMemory(device, &mai, NULL, &b->memory));
        CHECK(vkBindBufferMemory(device, b->buffer, b->memory, 0));
        CHECK(vkMapMemory(device, b->memory, 0, b->size, 0, &b->mapped));
        memset(b->mapped, 0, b->size);  /* "zeros"; "undefined" may hold anything */
        const cJSON *index = field(jb, "input_index");
        if (cJSON_IsNumber(index)) {
            size_t n;
            char *data = read_file(argv[2 + index->valueint], &n);
            size_t want = (size_t)field(jb, "element_count")->valuedouble *
                          element_size(field(jb, "element_type")->valuestring);
            if (n != want) die("%s: %zu bytes, input %s needs %zu", argv[2 + index->valueint],
                               n, b->name, want);
            memcpy(b->mapped, data, n);
            free(data);
        }
    }

    /* One pipeline per kernel; all recorded in one command buffer, barriers between. */
    int nk = cJSON_GetArraySize(kernels);
    VkDescriptorPoolSize pool_size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, (uint32_t)(nk * 64)};
    VkDescriptorPoolCreateInfo dpci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                       .maxSets = (uint32_t)nk, .poolSizeCount = 1,
                                       .pPoolSizes = &pool_size};
    VkDescriptorPool pool;
    CHECK(vkCreateDescriptorPool(device, &dpci, NULL, &pool));
    VkCommandPoolCreateInfo cpci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .queueFamilyIndex = family};
    VkCommandPool cpool;
    CHECK(vkCreateCommandPool(device, &cpci, NULL, &cpool));
    VkCommandBufferAllocateInfo cbai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                        .commandPool = cpool,
                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                        .commandBufferCount = 1};
    VkCommandBuffer cmd;
    CHECK(vkAllocateCommandBuffers(device, &cbai, &cmd));
    VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                      .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
    CHECK(vkBeginCommandBuffer(cmd, &begin));
    for (int k = 0; k < nk; k++) {
        const cJSON *jk = cJSON_GetArrayItem(kernels, k);
        const cJSON *bindings = field(jk, "bindings");
        uint32_t nb = (uint32_t)cJSON_GetArraySize(bindings);
        VkDescriptorSetLayoutBinding lb[64];
        VkDescriptorBufferInfo infos[64];
        VkWriteDescriptorSet writes[64];
        if (nb > 64) die("kernel %d binds %u buffers", k, nb);
        for (uint32_t i = 0; i < nb; i++) {
            const cJSON *jbind = cJSON_GetArrayItem(bindings, (int)i);
            Buffer *b = find_buffer(buffers, nbuf, field(jbind, "buffer")->valuestring);
            uint32_t at = (uint32_t)field(jbind, "binding")->valueint;
            lb[i] = (VkDescriptorSetLayoutBinding){at, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1,
                                                   VK_SHADER_STAGE_COMPUTE_BIT, NULL};
            infos[i] = (VkDescriptorBufferInfo){b->buffer, 0, VK_WHOLE_SIZE};
            writes[i] = (VkWriteDescriptorSet){.sType = VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET,
                                               .dstBinding = at, .descriptorCount = 1,
                                               .descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                                               .pBufferInfo = &infos[i]};
        }
        VkDescriptorSetLayoutCreateInfo dslci = {
            .sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO, .bindingCount = nb,
            .pBindings = lb};
        VkDescriptorSetLayout dsl;
        CHECK(vkCreateDescriptorSetLayout(device, &dslci, NULL, &dsl));
        VkDescriptorSetAllocateInfo dsai = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO,
                                            .descriptorPool = pool, .descriptorSetCount = 1,
                                            .pSetLayouts = &dsl};
        VkDescriptorSet set;
        CHECK(vkAllocateDescriptorSets(device, &dsai, &set));
        for (uint32_t i = 0; i < nb; i++) writes[i].dstSet = set;
        vkUpdateDescriptorSets(device, nb, writes, 0, NULL);
        VkPipelineLayoutCreateInfo plci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                           .setLayoutCount = 1, .pSetLayouts = &dsl};
        VkPipelineLayout layout;
        CHECK(vkCreatePipelineLayout(device, &plci, NULL, &layout));
        char path[8192];
        snprintf(path, sizeof path, "%s%s", folder, field(jk, "spirv")->valuestring);
        size_t code_size;
        char *code = read_file(path, &code_size);
        VkShaderModuleCreateInfo smci = {.sType = VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO,
                                         .codeSize = code_size, .pCode = (const uint32_t *)code};
        VkShaderModule module;
        CHECK(vkCreateShaderModule(device, &smci, NULL, &module));
        VkComputePipelineCreateInfo cpi = {
            .sType = VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO,
            .stage = {.sType = VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO,
                      .stage = VK_SHADER_STAGE_COMPUTE_BIT, .module = module,
                      .pName = field(jk, "entry_point")->valuestring},
            .layout = layout};
        VkPipeline pipeline;
        CHECK(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &cpi, NULL, &pipeline));
        const cJSON *grid = field(jk, "dispatch");
        if (k > 0) {  /* every write of the kernels before is visible to this one */
            VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                       .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                                       .dstAccessMask = VK_ACCESS_SHADER_READ_BIT |
                                                        VK_ACCESS_SHADER_WRITE_BIT};
            vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                 VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0, NULL,
                                 0, NULL);
        }
        vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline);
        vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layout, 0, 1, &set, 0,
                                NULL);
        vkCmdDispatch(cmd, (uint32_t)cJSON_GetArrayItem(grid, 0)->valueint,
                      (uint32_t)cJSON_GetArrayItem(grid, 1)->valueint,
                      (uint32_t)cJSON_GetArrayItem(grid, 2)->valueint);
        free(code);
    }
    VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                               .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                               .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
    vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0,
                         1, &to_host, 0, NULL, 0, NULL);
    CHECK(vkEndCommandBuffer(cmd));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    CHECK(vkCreateFence(device, &fci, NULL, &fence));
    VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                           .pCommandBuffers = &cmd};
    CHECK(vkQueueSubmit(queue, 1, &submit, fence));
    CHECK(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX));

    /* The output buffer's elements. */
    for (int i = 0; i < nbuf; i++) {
        const cJSON *jb = cJSON_GetArrayItem(jbuffers, i);
        if (!cJSON_IsTrue(field(jb, "output"))) continue;
        size_t n = (size_t)field(jb, "element_count")->valuedouble *
                   element_size(field(jb, "element_type")->valuestring);
        FILE *f = fopen(argv[argc - 1], "wb");
        if (!f || fwrite(buffers[i].mapped, 1, n, f) != n) die("cannot write %s", argv[argc - 1]);
        fclose(f);
    }
    vkDeviceWaitIdle(device);
    /* The process exits: the driver reclaims every object (a real engine would destroy them). */
    cJSON_Delete(m);
    free(text);
    return 0;
}
