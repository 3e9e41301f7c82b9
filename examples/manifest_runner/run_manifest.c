/* Run a dmlc program from its manifest alone: plain Vulkan through the loader, no dmlc, no kp.
 *
 *   dmlc compile prog.dml --emit manifest -o out/
 *   run_manifest out/NAME.manifest.json in0.bin in1.bin ... result.bin
 *   run_manifest out/NAME.manifest.json --calls calls.json
 *
 * Inputs are raw files in the manifest's input order (the bytes of a C array of each input's
 * element type: numpy's `a.tofile(f)`); result.bin receives the output buffer's elements (all
 * outputs one after another for a split). Every buffer is host-visible memory for simplicity
 * (a real engine would use device-local memory and staging copies); the kernels run in order
 * with a compute-to-compute barrier between them, as the manifest says.
 *
 * A generic program (its manifest's "generic" section: sizes as push constants) runs once per
 * call of a calls file, a JSON list of {"tensors": {NAME: {"sizes": [...], "strides": [...],
 * "offset": N}}, "fields": {NAME: N or [...]}, "inputs": [FILE, ...], "output": FILE}: each
 * tensor's sizes, strides and offset and each integer field default to the manifest's, strides to packed ones where the tensor is packed, and an input tensor's
 * buffer_elements are its file's elements. The pipelines and buffers are made once (buffers
 * for the largest call); each call evaluates the push words' formulas, checks their ranges and
 * the guards, and dispatches with its own words and workgroup counts.
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

/* A call's view of one tensor: what the formulas' variables read. */
typedef struct {
    const char *name;
    int rank;
    int64_t sizes[8], strides[8], offset, elements;
    int has_elements, output;
} Tensor;

/* What a formula reads: the call's tensors, the descriptor's integer fields (the call's, else
 * the manifest's) and the push words computed so far. */
typedef struct {
    Tensor *tensors;
    int ntensors;
    const cJSON *fields, *given_fields;
    const int64_t *words;
    int nwords;
} Scope;

static Tensor *find_tensor(Tensor *tensors, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (!strcmp(tensors[i].name, name)) return &tensors[i];
    die("formula: no tensor \"%s\"", name);
}

static int64_t floordiv(int64_t a, int64_t b) {
    if (b == 0) die("formula: division by zero");
    int64_t q = a / b;
    return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

/* A divisor's magic words (dmlc's ir/kernel.py, division_magic): s = ceil(log2 d) and
 * m = floor(2^32 * (2^s - d) / d) + 1, so that n / d == (mulhi(n, m) + n) >> s in the shader. */
static int64_t division_magic(int64_t d, int want_shift) {
    if (d < 1 || d >= ((int64_t)1 << 31)) die("formula: divisor %lld outside [1, 2^31)", (long long)d);
    int s = 0;
    while (((int64_t)1 << s) < d) s++;
    if (want_shift) return s;
    return (int64_t)((((uint64_t)1 << 32) * (((uint64_t)1 << s) - (uint64_t)d)) / (uint64_t)d + 1);
}

/* A formula (docs/shaders-out.md): an int, or [op, args...] over the call's tensors and the
 * push words computed so far (["word", k]: a buffer's extent). Python's floor division. */
static int64_t eval(const cJSON *e, const Scope *s) {
    if (cJSON_IsNumber(e)) return (int64_t)e->valuedouble;
    const char *op = cJSON_GetArrayItem(e, 0)->valuestring;
    const cJSON *a1 = cJSON_GetArrayItem(e, 1), *a2 = cJSON_GetArrayItem(e, 2);
    Tensor *t = s->tensors;
    int nt = s->ntensors;
    if (!strcmp(op, "word")) {
        if (a1->valueint >= s->nwords) die("formula: word %d not computed", a1->valueint);
        return s->words[a1->valueint];
    }
    if (!strcmp(op, "field")) {
        const cJSON *v = s->given_fields ? cJSON_GetObjectItemCaseSensitive(s->given_fields, a1->valuestring) : NULL;
        if (!v) v = s->fields ? cJSON_GetObjectItemCaseSensitive(s->fields, a1->valuestring) : NULL;
        if (!v) die("formula: no field \"%s\"", a1->valuestring);
        if (a2) v = cJSON_GetArrayItem(v, a2->valueint);
        if (!cJSON_IsNumber(v)) die("formula: field %s is not an integer", a1->valuestring);
        return (int64_t)v->valuedouble;
    }
    if (!strcmp(op, "size") || !strcmp(op, "stride")) {
        Tensor *x = find_tensor(t, nt, a1->valuestring);
        if (a2->valueint >= x->rank) die("formula: %s has rank %d", x->name, x->rank);
        return op[1] == 'i' ? x->sizes[a2->valueint] : x->strides[a2->valueint];
    }
    if (!strcmp(op, "offset")) return find_tensor(t, nt, a1->valuestring)->offset;
    if (!strcmp(op, "elements")) {
        Tensor *x = find_tensor(t, nt, a1->valuestring);
        if (!x->has_elements) die("formula: %s has no buffer_elements", x->name);
        return x->elements;
    }
    int64_t a = eval(a1, s);
    if (!strcmp(op, "neg")) return -a;
    if (!strcmp(op, "magic") || !strcmp(op, "shift")) return division_magic(a, op[0] == 's');
    int64_t b = eval(a2, s);
    if (!strcmp(op, "add")) return a + b;
    if (!strcmp(op, "sub")) return a - b;
    if (!strcmp(op, "mul")) return a * b;
    if (!strcmp(op, "floordiv")) return floordiv(a, b);
    if (!strcmp(op, "mod")) return a - floordiv(a, b) * b;
    if (!strcmp(op, "eq")) return a == b;
    if (!strcmp(op, "ne")) return a != b;
    if (!strcmp(op, "lt")) return a < b;
    if (!strcmp(op, "le")) return a <= b;
    if (!strcmp(op, "gt")) return a > b;
    if (!strcmp(op, "ge")) return a >= b;
    die("formula: unknown op %s", op);
}

static Buffer *find_buffer(Buffer *buffers, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (!strcmp(buffers[i].name, name)) return &buffers[i];
    die("manifest: no buffer \"%s\"", name);
}

/* One call of the program: its tensors, push words, input files and output file. */
typedef struct {
    Tensor tensors[64];
    int ntensors;
    int64_t words[32];
    const char *inputs[64];
    const char *output;
    const cJSON *fields, *given_fields;
} Call;

static Scope scope(const Call *c, int nwords) {
    return (Scope){(Tensor *)c->tensors, c->ntensors, c->fields, c->given_fields, c->words,
                   nwords};
}

static int64_t file_size(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) die("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    int64_t n = ftell(f);
    fclose(f);
    return n;
}

static void ints(const cJSON *list, int64_t *out, int *n) {
    *n = cJSON_GetArraySize(list);
    if (*n > 8) die("more than 8 dimensions");
    for (int i = 0; i < *n; i++) out[i] = (int64_t)cJSON_GetArrayItem(list, i)->valuedouble;
}

/* The call's tensors (the manifest's, with what `spec` changes), its push words from their
 * formulas, each checked against its range, and every guard checked. */
static void prepare(Call *c, int index, const cJSON *m, const cJSON *spec) {
    const cJSON *generic = cJSON_GetObjectItemCaseSensitive(m, "generic");
    const cJSON *jinputs = field(m, "inputs");
    if (cJSON_IsNull(generic)) generic = NULL;  /* fixed sizes: no tensors, no words */
    const cJSON *specs = spec ? cJSON_GetObjectItemCaseSensitive(spec, "tensors") : NULL;
    c->ntensors = 0;
    for (const cJSON *jt = generic ? field(generic, "tensors")->child : NULL; jt; jt = jt->next) {
        Tensor *t = &c->tensors[c->ntensors++];
        const cJSON *given = specs ? cJSON_GetObjectItemCaseSensitive(specs, field(jt, "name")->valuestring) : NULL;
        const cJSON *sizes = given ? cJSON_GetObjectItemCaseSensitive(given, "sizes") : NULL;
        const cJSON *strides = given ? cJSON_GetObjectItemCaseSensitive(given, "strides") : NULL;
        const cJSON *offset = given ? cJSON_GetObjectItemCaseSensitive(given, "offset") : NULL;
        int n;
        t->name = field(jt, "name")->valuestring;
        t->output = cJSON_IsTrue(field(jt, "output"));
        ints(sizes ? sizes : field(jt, "sizes"), t->sizes, &t->rank);
        if (strides || !cJSON_IsTrue(field(jt, "packed")) || !sizes) {
            ints(strides ? strides : field(jt, "strides"), t->strides, &n);
        } else {  /* packed: row-major strides of the call's sizes */
            int64_t acc = 1;
            for (int i = t->rank - 1; i >= 0; i--) { t->strides[i] = acc; acc *= t->sizes[i]; }
        }
        t->offset = (int64_t)(offset ? offset : field(jt, "offset"))->valuedouble;
        t->elements = t->offset + 1;  /* a buffer of its own: the elements it reaches */
        for (int i = 0; i < t->rank; i++)
            if (t->strides[i] > 0) t->elements += (t->sizes[i] - 1) * t->strides[i];
        t->has_elements = 1;
        const cJSON *buf = field(jt, "buffer");
        for (const cJSON *ji = jinputs->child; ji && cJSON_IsString(buf); ji = ji->next)
            if (!strcmp(field(ji, "buffer")->valuestring, buf->valuestring) &&
                !cJSON_IsTrue(field(jt, "output")))  /* bound to an input file: its elements */
                t->elements = file_size(c->inputs[field(ji, "index")->valueint]) /
                              (int64_t)element_size(field(jt, "element_type")->valuestring);
    }
    c->fields = generic ? field(generic, "fields") : NULL;
    c->given_fields = spec ? cJSON_GetObjectItemCaseSensitive(spec, "fields") : NULL;
    int k = 0;
    for (const cJSON *w = generic ? field(generic, "words")->child : NULL; w; w = w->next, k++) {
        if (k >= 32) die("more than 32 push words");
        Scope sc = scope(c, k);
        int64_t v = eval(field(w, "expr"), &sc);
        int64_t lo = (int64_t)field(w, "min")->valuedouble, hi = (int64_t)field(w, "max")->valuedouble;
        if (v < lo || v > hi)
            die("call %d: push word %d = %s is %lld, outside [%lld, %lld]: the kernel does not "
                "serve this call", index, k, field(w, "formula")->valuestring, (long long)v,
                (long long)lo, (long long)hi);
        c->words[k] = v;
    }
    Scope sc = scope(c, k);
    for (const cJSON *g = generic ? field(generic, "guards")->child : NULL; g; g = g->next)
        if (!eval(field(g, "expr"), &sc))
            die("call %d: the kernel assumes %s", index, field(g, "condition")->valuestring);
}

/* Bytes a buffer needs for call c: its extent's (whole 16-byte vectors), else its byte_size;
 * an input's file at least. */
static VkDeviceSize needed(const cJSON *jb, const Call *c, int nwords) {
    const cJSON *extent = cJSON_GetObjectItemCaseSensitive(jb, "extent");
    VkDeviceSize n = (VkDeviceSize)field(jb, "byte_size")->valuedouble;
    if (extent && !cJSON_IsNull(extent)) {
        Scope sc = scope(c, nwords);
        int64_t e = eval(extent, &sc);
        n = (VkDeviceSize)((e * (int64_t)element_size(field(jb, "element_type")->valuestring) + 15) / 16 * 16);
    }
    const cJSON *index = field(jb, "input_index");
    if (cJSON_IsNumber(index)) {
        VkDeviceSize f = (VkDeviceSize)(file_size(c->inputs[index->valueint]) + 15) / 16 * 16;
        n = f > n ? f : n;
    }
    return n;
}

int main(int argc, char **argv) {
    if (argc < 3) die("usage: run_manifest MANIFEST.json [INPUT.bin ...] OUTPUT.bin\n"
                      "       run_manifest MANIFEST.json --calls CALLS.json");
    size_t size;
    char *text = read_file(argv[1], &size);
    cJSON *m = cJSON_Parse(text);
    if (!m) die("%s: not JSON", argv[1]);
    int version = field(m, "version")->valueint;
    if (strcmp(field(m, "format")->valuestring, "dmlc-manifest") || version < 1 || version > 2)
        die("%s: not a version 1 or 2 dmlc manifest", argv[1]);
    const cJSON *inputs = field(m, "inputs"), *jbuffers = field(m, "buffers");
    const cJSON *kernels = field(m, "kernels");
    const cJSON *generic = cJSON_GetObjectItemCaseSensitive(m, "generic");
    if (generic && cJSON_IsNull(generic)) generic = NULL;
    int ninputs = cJSON_GetArraySize(inputs), nwords = 0;
    if (generic) nwords = cJSON_GetArraySize(field(generic, "words"));

    /* The calls: one from the command line, or each of a calls file. */
    cJSON *calls_doc = NULL;
    int ncalls = 1;
    if (!strcmp(argv[2], "--calls")) {
        if (argc != 4) die("usage: run_manifest MANIFEST.json --calls CALLS.json");
        char *calls_text = read_file(argv[3], &size);
        calls_doc = cJSON_Parse(calls_text);
        if (!cJSON_IsArray(calls_doc)) die("%s: not a JSON list of calls", argv[3]);
        ncalls = cJSON_GetArraySize(calls_doc);
    } else if (argc != 3 + ninputs) {
        die("the program takes %d inputs", ninputs);
    }
    Call *calls = calloc((size_t)ncalls, sizeof *calls);
    for (int c = 0; c < ncalls; c++) {
        const cJSON *spec = calls_doc ? cJSON_GetArrayItem(calls_doc, c) : NULL;
        const cJSON *files = spec ? field(spec, "inputs") : NULL;
        if (spec && cJSON_GetArraySize(files) != ninputs)
            die("call %d: the program takes %d inputs", c, ninputs);
        for (int i = 0; i < ninputs; i++)
            calls[c].inputs[i] = spec ? cJSON_GetArrayItem(files, i)->valuestring : argv[2 + i];
        calls[c].output = spec ? field(spec, "output")->valuestring : argv[argc - 1];
        prepare(&calls[c], c, m, spec);
    }
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


    /* Buffers, each of the bytes the largest call needs. */
    int nbuf = cJSON_GetArraySize(jbuffers);
    Buffer *buffers = calloc((size_t)nbuf, sizeof *buffers);
    for (int i = 0; i < nbuf; i++) {
        const cJSON *jb = cJSON_GetArrayItem(jbuffers, i);
        Buffer *b = &buffers[i];
        b->name = field(jb, "name")->valuestring;
        for (int c = 0; c < ncalls; c++) {
            VkDeviceSize n = needed(jb, &calls[c], nwords);
            b->size = n > b->size ? n : b->size;
        }
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
        memset(b->mapped, 0, b->size);
    }

    /* One pipeline per kernel (its push constants the generic program's words), made once. */
    int nk = cJSON_GetArraySize(kernels);
    uint32_t push_bytes = generic ? (uint32_t)field(generic, "push_constant_bytes")->valueint : 0;
    VkPipeline *pipelines = calloc((size_t)nk, sizeof *pipelines);
    VkPipelineLayout *layouts = calloc((size_t)nk, sizeof *layouts);
    VkDescriptorSet *sets = calloc((size_t)nk, sizeof *sets);
    VkDescriptorPoolSize pool_size = {VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, (uint32_t)(nk * 64)};
    VkDescriptorPoolCreateInfo dpci = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                       .maxSets = (uint32_t)nk, .poolSizeCount = 1,
                                       .pPoolSizes = &pool_size};
    VkDescriptorPool pool;
    CHECK(vkCreateDescriptorPool(device, &dpci, NULL, &pool));
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
        CHECK(vkAllocateDescriptorSets(device, &dsai, &sets[k]));
        for (uint32_t i = 0; i < nb; i++) writes[i].dstSet = sets[k];
        vkUpdateDescriptorSets(device, nb, writes, 0, NULL);
        VkPushConstantRange range = {VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes};
        VkPipelineLayoutCreateInfo plci = {.sType = VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO,
                                           .setLayoutCount = 1, .pSetLayouts = &dsl,
                                           .pushConstantRangeCount = push_bytes ? 1 : 0,
                                           .pPushConstantRanges = &range};
        CHECK(vkCreatePipelineLayout(device, &plci, NULL, &layouts[k]));
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
            .layout = layouts[k]};
        CHECK(vkCreateComputePipelines(device, VK_NULL_HANDLE, 1, &cpi, NULL, &pipelines[k]));
        free(code);
    }
    VkCommandPoolCreateInfo cpci = {.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO,
                                    .flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT,
                                    .queueFamilyIndex = family};
    VkCommandPool cpool;
    CHECK(vkCreateCommandPool(device, &cpci, NULL, &cpool));
    VkCommandBufferAllocateInfo cbai = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO,
                                        .commandPool = cpool,
                                        .level = VK_COMMAND_BUFFER_LEVEL_PRIMARY,
                                        .commandBufferCount = 1};
    VkCommandBuffer cmd;
    CHECK(vkAllocateCommandBuffers(device, &cbai, &cmd));
    VkFenceCreateInfo fci = {.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    VkFence fence;
    CHECK(vkCreateFence(device, &fci, NULL, &fence));

    for (int c = 0; c < ncalls; c++) {
        const Call *call = &calls[c];
        /* Each buffer as "initial" says: the caller's input, or zeros again (a checked
         * kernel's status stays set after a call that found a bad index); "undefined" ones
         * keep what the last call left. */
        for (int i = 0; i < nbuf; i++) {
            const cJSON *jb = cJSON_GetArrayItem(jbuffers, i);
            Buffer *b = &buffers[i];
            if (!strcmp(field(jb, "initial")->valuestring, "zeros")) memset(b->mapped, 0, b->size);
            const cJSON *index = field(jb, "input_index");
            if (!cJSON_IsNumber(index)) continue;
            const char *file = call->inputs[index->valueint];
            char *data = read_file(file, &size);
            size_t want = (size_t)field(jb, "element_count")->valuedouble *
                          element_size(field(jb, "element_type")->valuestring);
            if (!generic && size != want)
                die("%s: %zu bytes, input %s needs %zu", file, size, b->name, want);
            memcpy(b->mapped, data, size);
            free(data);
        }
        VkCommandBufferBeginInfo begin = {.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO,
                                          .flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT};
        CHECK(vkBeginCommandBuffer(cmd, &begin));
        uint32_t words[32];
        for (int w = 0; w < nwords; w++) words[w] = (uint32_t)call->words[w];
        for (int k = 0; k < nk; k++) {
            const cJSON *jk = cJSON_GetArrayItem(kernels, k);
            if (k > 0) {  /* every write of the kernels before is visible to this one */
                VkMemoryBarrier barrier = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                           .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                                           .dstAccessMask = VK_ACCESS_SHADER_READ_BIT |
                                                            VK_ACCESS_SHADER_WRITE_BIT};
                vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                                     VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &barrier, 0,
                                     NULL, 0, NULL);
            }
            vkCmdBindPipeline(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, pipelines[k]);
            vkCmdBindDescriptorSets(cmd, VK_PIPELINE_BIND_POINT_COMPUTE, layouts[k], 0, 1,
                                    &sets[k], 0, NULL);
            if (push_bytes)
                vkCmdPushConstants(cmd, layouts[k], VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes,
                                   words);
            /* the workgroups: the manifest's, or a generic kernel's from its count word (the
             * shaders linearize the group id: any grid of that many groups works) */
            int64_t groups = (int64_t)field(jk, "workgroups")->valuedouble;
            const cJSON *count = cJSON_GetObjectItemCaseSensitive(jk, "count_word");
            if (count && cJSON_IsNumber(count)) {
                int64_t per = (int64_t)field(jk, "items_per_workgroup")->valuedouble;
                groups = (call->words[count->valueint] + per - 1) / per;
            }
            uint32_t gx = (uint32_t)(groups < 1 ? 1 : groups > 65535 ? 65535 : groups);
            vkCmdDispatch(cmd, gx, (uint32_t)((groups + gx - 1) / gx), 1);
        }
        VkMemoryBarrier to_host = {.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER,
                                   .srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT,
                                   .dstAccessMask = VK_ACCESS_HOST_READ_BIT};
        vkCmdPipelineBarrier(cmd, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                             VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, NULL, 0, NULL);
        CHECK(vkEndCommandBuffer(cmd));
        VkSubmitInfo submit = {.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO, .commandBufferCount = 1,
                               .pCommandBuffers = &cmd};
        CHECK(vkQueueSubmit(queue, 1, &submit, fence));
        CHECK(vkWaitForFences(device, 1, &fence, VK_TRUE, UINT64_MAX));
        CHECK(vkResetFences(device, 1, &fence));
        CHECK(vkResetCommandBuffer(cmd, 0));

        /* The output buffer's elements: the manifest's count, or a generic call's output. */
        for (int i = 0; i < nbuf; i++) {
            const cJSON *jb = cJSON_GetArrayItem(jbuffers, i);
            if (!cJSON_IsTrue(field(jb, "output"))) continue;
            int64_t count = (int64_t)field(jb, "element_count")->valuedouble;
            for (int t = 0; generic && t < call->ntensors; t++) {
                const Tensor *out = &call->tensors[t];
                if (!out->output) continue;
                count = 1;
                for (int d = 0; d < out->rank; d++) count *= out->sizes[d];
            }
            size_t n = (size_t)count * element_size(field(jb, "element_type")->valuestring);
            FILE *f = fopen(call->output, "wb");
            if (!f || fwrite(buffers[i].mapped, 1, n, f) != n) die("cannot write %s", call->output);
            fclose(f);
        }
    }
    vkDeviceWaitIdle(device);
    /* The process exits: the driver reclaims every object (a real engine would destroy them). */
    cJSON_Delete(m);
    free(text);
    return 0;
}
