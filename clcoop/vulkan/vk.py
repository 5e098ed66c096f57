"""The Vulkan API that the GPU engine uses, declared with ctypes over the loader (libvulkan.so.1).

Only what a compute engine needs: instance and physical-device queries, one device and queue,
buffers with device addresses, compute pipelines, command buffers, fences and timestamp
queries, and the cooperative-matrix queries (VK_KHR_cooperative_matrix,
VK_NV_cooperative_matrix2). Layouts follow vulkan_core.h (Vulkan 1.3, header 239; the
cooperative-matrix and bfloat16 structures from the registry's later headers);
test_vulkan_vk.py checks every structure's size against the C header when clang and the header
are at hand. docs/gpu.md says why ctypes and not a PyPI binding.
"""
import ctypes

from clcoop.coopmat_spec import VK_COMPONENT_TYPES
from clcoop.errors import DeviceError, DeviceLost, DeviceOutOfMemory, DeviceUnavailable

U8, U32, I32, U64, F32 = ctypes.c_uint8, ctypes.c_uint32, ctypes.c_int32, ctypes.c_uint64, ctypes.c_float
SIZE, VP, CP, CHAR = ctypes.c_size_t, ctypes.c_void_p, ctypes.c_char_p, ctypes.c_char
HANDLE = U64            # non-dispatchable handles are 64-bit on every platform (VK_DEFINE_NON_DISPATCHABLE_HANDLE)

VK_MAX_PHYSICAL_DEVICE_NAME_SIZE = 256
VK_UUID_SIZE = 16
VK_LUID_SIZE = 8
VK_MAX_EXTENSION_NAME_SIZE = 256
VK_MAX_MEMORY_TYPES = 32
VK_MAX_MEMORY_HEAPS = 16
VK_MAX_DRIVER_NAME_SIZE = 256
VK_MAX_DRIVER_INFO_SIZE = 256
VK_MAX_DESCRIPTION_SIZE = 256


def make_version(major, minor, patch=0):
    return (major << 22) | (minor << 12) | patch


def version_text(version):
    return f"{version >> 22}.{(version >> 12) & 0x3FF}.{version & 0xFFF}"


API_VERSION_1_3 = make_version(1, 3)

# VkStructureType
ST_APPLICATION_INFO = 0
ST_INSTANCE_CREATE_INFO = 1
ST_DEVICE_QUEUE_CREATE_INFO = 2
ST_DEVICE_CREATE_INFO = 3
ST_SUBMIT_INFO = 4
ST_MEMORY_ALLOCATE_INFO = 5
ST_FENCE_CREATE_INFO = 8
ST_QUERY_POOL_CREATE_INFO = 11
ST_BUFFER_CREATE_INFO = 12
ST_SHADER_MODULE_CREATE_INFO = 16
ST_PIPELINE_SHADER_STAGE_CREATE_INFO = 18
ST_COMPUTE_PIPELINE_CREATE_INFO = 29
ST_PIPELINE_LAYOUT_CREATE_INFO = 30
ST_COMMAND_POOL_CREATE_INFO = 39
ST_COMMAND_BUFFER_ALLOCATE_INFO = 40
ST_COMMAND_BUFFER_BEGIN_INFO = 42
ST_MEMORY_BARRIER = 46
ST_PHYSICAL_DEVICE_VULKAN_1_1_FEATURES = 49
ST_PHYSICAL_DEVICE_VULKAN_1_1_PROPERTIES = 50
ST_PHYSICAL_DEVICE_VULKAN_1_2_FEATURES = 51
ST_PHYSICAL_DEVICE_VULKAN_1_2_PROPERTIES = 52
ST_PHYSICAL_DEVICE_VULKAN_1_3_FEATURES = 53
ST_PHYSICAL_DEVICE_VULKAN_1_3_PROPERTIES = 54
ST_PHYSICAL_DEVICE_FEATURES_2 = 1000059000
ST_PHYSICAL_DEVICE_PROPERTIES_2 = 1000059001
ST_MEMORY_ALLOCATE_FLAGS_INFO = 1000060000
ST_PHYSICAL_DEVICE_SHADER_BFLOAT16_FEATURES_KHR = 1000141000
ST_PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO = 1000225001
ST_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR = 1000269000
ST_PIPELINE_INFO_KHR = 1000269001
ST_PIPELINE_EXECUTABLE_PROPERTIES_KHR = 1000269002
ST_PIPELINE_EXECUTABLE_INFO_KHR = 1000269003
ST_PIPELINE_EXECUTABLE_STATISTIC_KHR = 1000269004
ST_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR = 1000269005
ST_BUFFER_DEVICE_ADDRESS_INFO = 1000244001
ST_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_FEATURES_KHR = 1000506000
ST_COOPERATIVE_MATRIX_PROPERTIES_KHR = 1000506001
ST_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_PROPERTIES_KHR = 1000506002
ST_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_FEATURES_NV = 1000593000
ST_COOPERATIVE_MATRIX_FLEXIBLE_DIMENSIONS_PROPERTIES_NV = 1000593001
ST_PHYSICAL_DEVICE_COOPERATIVE_MATRIX_2_PROPERTIES_NV = 1000593002

# VkResult
SUCCESS, NOT_READY, TIMEOUT, INCOMPLETE = 0, 1, 2, 5
ERROR_OUT_OF_HOST_MEMORY = -1
ERROR_OUT_OF_DEVICE_MEMORY = -2
ERROR_INITIALIZATION_FAILED = -3
ERROR_DEVICE_LOST = -4
ERROR_MEMORY_MAP_FAILED = -5
ERROR_EXTENSION_NOT_PRESENT = -7
ERROR_FEATURE_NOT_PRESENT = -8
ERROR_INCOMPATIBLE_DRIVER = -9
ERROR_TOO_MANY_OBJECTS = -10
ERROR_UNKNOWN = -13
ERROR_OUT_OF_POOL_MEMORY = -1000069000
ERROR_INVALID_SHADER_NV = -1000012000
RESULT_NAMES = {
    SUCCESS: "VK_SUCCESS", NOT_READY: "VK_NOT_READY", TIMEOUT: "VK_TIMEOUT", INCOMPLETE: "VK_INCOMPLETE",
    ERROR_OUT_OF_HOST_MEMORY: "VK_ERROR_OUT_OF_HOST_MEMORY",
    ERROR_OUT_OF_DEVICE_MEMORY: "VK_ERROR_OUT_OF_DEVICE_MEMORY",
    ERROR_INITIALIZATION_FAILED: "VK_ERROR_INITIALIZATION_FAILED", ERROR_DEVICE_LOST: "VK_ERROR_DEVICE_LOST",
    ERROR_MEMORY_MAP_FAILED: "VK_ERROR_MEMORY_MAP_FAILED",
    ERROR_EXTENSION_NOT_PRESENT: "VK_ERROR_EXTENSION_NOT_PRESENT",
    ERROR_FEATURE_NOT_PRESENT: "VK_ERROR_FEATURE_NOT_PRESENT",
    ERROR_INCOMPATIBLE_DRIVER: "VK_ERROR_INCOMPATIBLE_DRIVER", ERROR_TOO_MANY_OBJECTS: "VK_ERROR_TOO_MANY_OBJECTS",
    ERROR_UNKNOWN: "VK_ERROR_UNKNOWN", ERROR_OUT_OF_POOL_MEMORY: "VK_ERROR_OUT_OF_POOL_MEMORY",
    ERROR_INVALID_SHADER_NV: "VK_ERROR_INVALID_SHADER_NV",
}

# Flags and enums (vulkan_core.h)
QUEUE_COMPUTE_BIT = 0x2
PHYSICAL_DEVICE_TYPES = {0: "other", 1: "integrated GPU", 2: "discrete GPU", 3: "virtual GPU", 4: "CPU"}
BUFFER_USAGE_TRANSFER_SRC_BIT = 0x1
BUFFER_USAGE_TRANSFER_DST_BIT = 0x2
BUFFER_USAGE_STORAGE_BUFFER_BIT = 0x20
BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT = 0x20000
MEMORY_PROPERTY_DEVICE_LOCAL_BIT = 0x1
MEMORY_PROPERTY_HOST_VISIBLE_BIT = 0x2
MEMORY_PROPERTY_HOST_COHERENT_BIT = 0x4
MEMORY_PROPERTY_HOST_CACHED_BIT = 0x8
MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT = 0x2
SHADER_STAGE_COMPUTE_BIT = 0x20
PIPELINE_BIND_POINT_COMPUTE = 1
PIPELINE_SHADER_STAGE_CREATE_ALLOW_VARYING_SUBGROUP_SIZE_BIT = 0x1
PIPELINE_SHADER_STAGE_CREATE_REQUIRE_FULL_SUBGROUPS_BIT = 0x2
PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR = 0x40                  # VK_KHR_pipeline_executable_properties
PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR = 0x80
# VkPipelineExecutableStatisticFormatKHR
STATISTIC_FORMAT_BOOL32, STATISTIC_FORMAT_INT64, STATISTIC_FORMAT_UINT64, STATISTIC_FORMAT_FLOAT64 = 0, 1, 2, 3
COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT = 0x2
COMMAND_BUFFER_LEVEL_PRIMARY = 0
COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT = 0x1
PIPELINE_STAGE_TOP_OF_PIPE_BIT = 0x1
PIPELINE_STAGE_COMPUTE_SHADER_BIT = 0x800
PIPELINE_STAGE_TRANSFER_BIT = 0x1000
PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT = 0x2000
PIPELINE_STAGE_HOST_BIT = 0x4000
ACCESS_SHADER_READ_BIT = 0x20
ACCESS_SHADER_WRITE_BIT = 0x40
ACCESS_TRANSFER_READ_BIT = 0x800
ACCESS_TRANSFER_WRITE_BIT = 0x1000
ACCESS_HOST_READ_BIT = 0x2000
ACCESS_HOST_WRITE_BIT = 0x4000
QUERY_TYPE_TIMESTAMP = 2
QUERY_RESULT_64_BIT = 0x1
QUERY_RESULT_WAIT_BIT = 0x2
SHARING_MODE_EXCLUSIVE = 0

# VkComponentTypeKHR (its one home: coopmat_spec) and VkScopeKHR, spelled as docs/vulkan-abi.md spells them
COMPONENT_TYPES = VK_COMPONENT_TYPES
SCOPES = {1: "device", 2: "workgroup", 3: "subgroup", 5: "queuefamily"}


def _struct(name, fields):
    return type(name, (ctypes.Structure,), {"_fields_": fields})


VkPhysicalDeviceLimits = _struct("VkPhysicalDeviceLimits", [
    ("maxImageDimension1D", U32), ("maxImageDimension2D", U32), ("maxImageDimension3D", U32),
    ("maxImageDimensionCube", U32), ("maxImageArrayLayers", U32), ("maxTexelBufferElements", U32),
    ("maxUniformBufferRange", U32), ("maxStorageBufferRange", U32), ("maxPushConstantsSize", U32),
    ("maxMemoryAllocationCount", U32), ("maxSamplerAllocationCount", U32),
    ("bufferImageGranularity", U64), ("sparseAddressSpaceSize", U64),
    ("maxBoundDescriptorSets", U32), ("maxPerStageDescriptorSamplers", U32),
    ("maxPerStageDescriptorUniformBuffers", U32), ("maxPerStageDescriptorStorageBuffers", U32),
    ("maxPerStageDescriptorSampledImages", U32), ("maxPerStageDescriptorStorageImages", U32),
    ("maxPerStageDescriptorInputAttachments", U32), ("maxPerStageResources", U32),
    ("maxDescriptorSetSamplers", U32), ("maxDescriptorSetUniformBuffers", U32),
    ("maxDescriptorSetUniformBuffersDynamic", U32), ("maxDescriptorSetStorageBuffers", U32),
    ("maxDescriptorSetStorageBuffersDynamic", U32), ("maxDescriptorSetSampledImages", U32),
    ("maxDescriptorSetStorageImages", U32), ("maxDescriptorSetInputAttachments", U32),
    ("maxVertexInputAttributes", U32), ("maxVertexInputBindings", U32),
    ("maxVertexInputAttributeOffset", U32), ("maxVertexInputBindingStride", U32),
    ("maxVertexOutputComponents", U32), ("maxTessellationGenerationLevel", U32),
    ("maxTessellationPatchSize", U32), ("maxTessellationControlPerVertexInputComponents", U32),
    ("maxTessellationControlPerVertexOutputComponents", U32),
    ("maxTessellationControlPerPatchOutputComponents", U32),
    ("maxTessellationControlTotalOutputComponents", U32),
    ("maxTessellationEvaluationInputComponents", U32),
    ("maxTessellationEvaluationOutputComponents", U32), ("maxGeometryShaderInvocations", U32),
    ("maxGeometryInputComponents", U32), ("maxGeometryOutputComponents", U32),
    ("maxGeometryOutputVertices", U32), ("maxGeometryTotalOutputComponents", U32),
    ("maxFragmentInputComponents", U32), ("maxFragmentOutputAttachments", U32),
    ("maxFragmentDualSrcAttachments", U32), ("maxFragmentCombinedOutputResources", U32),
    ("maxComputeSharedMemorySize", U32), ("maxComputeWorkGroupCount", U32 * 3),
    ("maxComputeWorkGroupInvocations", U32), ("maxComputeWorkGroupSize", U32 * 3),
    ("subPixelPrecisionBits", U32), ("subTexelPrecisionBits", U32), ("mipmapPrecisionBits", U32),
    ("maxDrawIndexedIndexValue", U32), ("maxDrawIndirectCount", U32), ("maxSamplerLodBias", F32),
    ("maxSamplerAnisotropy", F32), ("maxViewports", U32), ("maxViewportDimensions", U32 * 2),
    ("viewportBoundsRange", F32 * 2), ("viewportSubPixelBits", U32), ("minMemoryMapAlignment", SIZE),
    ("minTexelBufferOffsetAlignment", U64), ("minUniformBufferOffsetAlignment", U64),
    ("minStorageBufferOffsetAlignment", U64), ("minTexelOffset", I32), ("maxTexelOffset", U32),
    ("minTexelGatherOffset", I32), ("maxTexelGatherOffset", U32), ("minInterpolationOffset", F32),
    ("maxInterpolationOffset", F32), ("subPixelInterpolationOffsetBits", U32),
    ("maxFramebufferWidth", U32), ("maxFramebufferHeight", U32), ("maxFramebufferLayers", U32),
    ("framebufferColorSampleCounts", U32), ("framebufferDepthSampleCounts", U32),
    ("framebufferStencilSampleCounts", U32), ("framebufferNoAttachmentsSampleCounts", U32),
    ("maxColorAttachments", U32), ("sampledImageColorSampleCounts", U32),
    ("sampledImageIntegerSampleCounts", U32), ("sampledImageDepthSampleCounts", U32),
    ("sampledImageStencilSampleCounts", U32), ("storageImageSampleCounts", U32),
    ("maxSampleMaskWords", U32), ("timestampComputeAndGraphics", U32), ("timestampPeriod", F32),
    ("maxClipDistances", U32), ("maxCullDistances", U32), ("maxCombinedClipAndCullDistances", U32),
    ("discreteQueuePriorities", U32), ("pointSizeRange", F32 * 2), ("lineWidthRange", F32 * 2),
    ("pointSizeGranularity", F32), ("lineWidthGranularity", F32), ("strictLines", U32),
    ("standardSampleLocations", U32), ("optimalBufferCopyOffsetAlignment", U64),
    ("optimalBufferCopyRowPitchAlignment", U64), ("nonCoherentAtomSize", U64)])

VkPhysicalDeviceSparseProperties = _struct("VkPhysicalDeviceSparseProperties", [
    ("residencyStandard2DBlockShape", U32), ("residencyStandard2DMultisampleBlockShape", U32),
    ("residencyStandard3DBlockShape", U32), ("residencyAlignedMipSize", U32),
    ("residencyNonResidentStrict", U32)])

VkPhysicalDeviceProperties = _struct("VkPhysicalDeviceProperties", [
    ("apiVersion", U32), ("driverVersion", U32), ("vendorID", U32), ("deviceID", U32),
    ("deviceType", I32), ("deviceName", CHAR * VK_MAX_PHYSICAL_DEVICE_NAME_SIZE),
    ("pipelineCacheUUID", U8 * VK_UUID_SIZE), ("limits", VkPhysicalDeviceLimits),
    ("sparseProperties", VkPhysicalDeviceSparseProperties)])

VkPhysicalDeviceProperties2 = _struct("VkPhysicalDeviceProperties2", [
    ("sType", I32), ("pNext", VP), ("properties", VkPhysicalDeviceProperties)])

VkPhysicalDeviceVulkan11Properties = _struct("VkPhysicalDeviceVulkan11Properties", [
    ("sType", I32), ("pNext", VP), ("deviceUUID", U8 * VK_UUID_SIZE),
    ("driverUUID", U8 * VK_UUID_SIZE), ("deviceLUID", U8 * VK_LUID_SIZE), ("deviceNodeMask", U32),
    ("deviceLUIDValid", U32), ("subgroupSize", U32), ("subgroupSupportedStages", U32),
    ("subgroupSupportedOperations", U32), ("subgroupQuadOperationsInAllStages", U32),
    ("pointClippingBehavior", I32), ("maxMultiviewViewCount", U32),
    ("maxMultiviewInstanceIndex", U32), ("protectedNoFault", U32), ("maxPerSetDescriptors", U32),
    ("maxMemoryAllocationSize", U64)])

VkConformanceVersion = _struct("VkConformanceVersion", [
    ("major", U8), ("minor", U8), ("subminor", U8), ("patch", U8)])

VkPhysicalDeviceVulkan12Properties = _struct("VkPhysicalDeviceVulkan12Properties", [
    ("sType", I32), ("pNext", VP), ("driverID", I32), ("driverName", CHAR * VK_MAX_DRIVER_NAME_SIZE),
    ("driverInfo", CHAR * VK_MAX_DRIVER_INFO_SIZE), ("conformanceVersion", VkConformanceVersion),
    ("denormBehaviorIndependence", I32), ("roundingModeIndependence", I32),
    ("shaderSignedZeroInfNanPreserveFloat16", U32), ("shaderSignedZeroInfNanPreserveFloat32", U32),
    ("shaderSignedZeroInfNanPreserveFloat64", U32), ("shaderDenormPreserveFloat16", U32),
    ("shaderDenormPreserveFloat32", U32), ("shaderDenormPreserveFloat64", U32),
    ("shaderDenormFlushToZeroFloat16", U32), ("shaderDenormFlushToZeroFloat32", U32),
    ("shaderDenormFlushToZeroFloat64", U32), ("shaderRoundingModeRTEFloat16", U32),
    ("shaderRoundingModeRTEFloat32", U32), ("shaderRoundingModeRTEFloat64", U32),
    ("shaderRoundingModeRTZFloat16", U32), ("shaderRoundingModeRTZFloat32", U32),
    ("shaderRoundingModeRTZFloat64", U32), ("maxUpdateAfterBindDescriptorsInAllPools", U32),
    ("shaderUniformBufferArrayNonUniformIndexingNative", U32),
    ("shaderSampledImageArrayNonUniformIndexingNative", U32),
    ("shaderStorageBufferArrayNonUniformIndexingNative", U32),
    ("shaderStorageImageArrayNonUniformIndexingNative", U32),
    ("shaderInputAttachmentArrayNonUniformIndexingNative", U32),
    ("robustBufferAccessUpdateAfterBind", U32), ("quadDivergentImplicitLod", U32),
    ("maxPerStageDescriptorUpdateAfterBindSamplers", U32),
    ("maxPerStageDescriptorUpdateAfterBindUniformBuffers", U32),
    ("maxPerStageDescriptorUpdateAfterBindStorageBuffers", U32),
    ("maxPerStageDescriptorUpdateAfterBindSampledImages", U32),
    ("maxPerStageDescriptorUpdateAfterBindStorageImages", U32),
    ("maxPerStageDescriptorUpdateAfterBindInputAttachments", U32),
    ("maxPerStageUpdateAfterBindResources", U32), ("maxDescriptorSetUpdateAfterBindSamplers", U32),
    ("maxDescriptorSetUpdateAfterBindUniformBuffers", U32),
    ("maxDescriptorSetUpdateAfterBindUniformBuffersDynamic", U32),
    ("maxDescriptorSetUpdateAfterBindStorageBuffers", U32),
    ("maxDescriptorSetUpdateAfterBindStorageBuffersDynamic", U32),
    ("maxDescriptorSetUpdateAfterBindSampledImages", U32),
    ("maxDescriptorSetUpdateAfterBindStorageImages", U32),
    ("maxDescriptorSetUpdateAfterBindInputAttachments", U32), ("supportedDepthResolveModes", U32),
    ("supportedStencilResolveModes", U32), ("independentResolveNone", U32),
    ("independentResolve", U32), ("filterMinmaxSingleComponentFormats", U32),
    ("filterMinmaxImageComponentMapping", U32), ("maxTimelineSemaphoreValueDifference", U64),
    ("framebufferIntegerColorSampleCounts", U32)])

VkPhysicalDeviceVulkan13Properties = _struct("VkPhysicalDeviceVulkan13Properties", [
    ("sType", I32), ("pNext", VP), ("minSubgroupSize", U32), ("maxSubgroupSize", U32),
    ("maxComputeWorkgroupSubgroups", U32), ("requiredSubgroupSizeStages", U32),
    ("maxInlineUniformBlockSize", U32), ("maxPerStageDescriptorInlineUniformBlocks", U32),
    ("maxPerStageDescriptorUpdateAfterBindInlineUniformBlocks", U32),
    ("maxDescriptorSetInlineUniformBlocks", U32),
    ("maxDescriptorSetUpdateAfterBindInlineUniformBlocks", U32), ("maxInlineUniformTotalSize", U32),
    ("integerDotProduct8BitUnsignedAccelerated", U32),
    ("integerDotProduct8BitSignedAccelerated", U32),
    ("integerDotProduct8BitMixedSignednessAccelerated", U32),
    ("integerDotProduct4x8BitPackedUnsignedAccelerated", U32),
    ("integerDotProduct4x8BitPackedSignedAccelerated", U32),
    ("integerDotProduct4x8BitPackedMixedSignednessAccelerated", U32),
    ("integerDotProduct16BitUnsignedAccelerated", U32),
    ("integerDotProduct16BitSignedAccelerated", U32),
    ("integerDotProduct16BitMixedSignednessAccelerated", U32),
    ("integerDotProduct32BitUnsignedAccelerated", U32),
    ("integerDotProduct32BitSignedAccelerated", U32),
    ("integerDotProduct32BitMixedSignednessAccelerated", U32),
    ("integerDotProduct64BitUnsignedAccelerated", U32),
    ("integerDotProduct64BitSignedAccelerated", U32),
    ("integerDotProduct64BitMixedSignednessAccelerated", U32),
    ("integerDotProductAccumulatingSaturating8BitUnsignedAccelerated", U32),
    ("integerDotProductAccumulatingSaturating8BitSignedAccelerated", U32),
    ("integerDotProductAccumulatingSaturating8BitMixedSignednessAccelerated", U32),
    ("integerDotProductAccumulatingSaturating4x8BitPackedUnsignedAccelerated", U32),
    ("integerDotProductAccumulatingSaturating4x8BitPackedSignedAccelerated", U32),
    ("integerDotProductAccumulatingSaturating4x8BitPackedMixedSignednessAccelerated", U32),
    ("integerDotProductAccumulatingSaturating16BitUnsignedAccelerated", U32),
    ("integerDotProductAccumulatingSaturating16BitSignedAccelerated", U32),
    ("integerDotProductAccumulatingSaturating16BitMixedSignednessAccelerated", U32),
    ("integerDotProductAccumulatingSaturating32BitUnsignedAccelerated", U32),
    ("integerDotProductAccumulatingSaturating32BitSignedAccelerated", U32),
    ("integerDotProductAccumulatingSaturating32BitMixedSignednessAccelerated", U32),
    ("integerDotProductAccumulatingSaturating64BitUnsignedAccelerated", U32),
    ("integerDotProductAccumulatingSaturating64BitSignedAccelerated", U32),
    ("integerDotProductAccumulatingSaturating64BitMixedSignednessAccelerated", U32),
    ("storageTexelBufferOffsetAlignmentBytes", U64),
    ("storageTexelBufferOffsetSingleTexelAlignment", U32),
    ("uniformTexelBufferOffsetAlignmentBytes", U64),
    ("uniformTexelBufferOffsetSingleTexelAlignment", U32), ("maxBufferSize", U64)])

VkPhysicalDeviceFeatures = _struct("VkPhysicalDeviceFeatures", [
    ("robustBufferAccess", U32), ("fullDrawIndexUint32", U32), ("imageCubeArray", U32),
    ("independentBlend", U32), ("geometryShader", U32), ("tessellationShader", U32),
    ("sampleRateShading", U32), ("dualSrcBlend", U32), ("logicOp", U32), ("multiDrawIndirect", U32),
    ("drawIndirectFirstInstance", U32), ("depthClamp", U32), ("depthBiasClamp", U32),
    ("fillModeNonSolid", U32), ("depthBounds", U32), ("wideLines", U32), ("largePoints", U32),
    ("alphaToOne", U32), ("multiViewport", U32), ("samplerAnisotropy", U32),
    ("textureCompressionETC2", U32), ("textureCompressionASTC_LDR", U32),
    ("textureCompressionBC", U32), ("occlusionQueryPrecise", U32), ("pipelineStatisticsQuery", U32),
    ("vertexPipelineStoresAndAtomics", U32), ("fragmentStoresAndAtomics", U32),
    ("shaderTessellationAndGeometryPointSize", U32), ("shaderImageGatherExtended", U32),
    ("shaderStorageImageExtendedFormats", U32), ("shaderStorageImageMultisample", U32),
    ("shaderStorageImageReadWithoutFormat", U32), ("shaderStorageImageWriteWithoutFormat", U32),
    ("shaderUniformBufferArrayDynamicIndexing", U32),
    ("shaderSampledImageArrayDynamicIndexing", U32),
    ("shaderStorageBufferArrayDynamicIndexing", U32),
    ("shaderStorageImageArrayDynamicIndexing", U32), ("shaderClipDistance", U32),
    ("shaderCullDistance", U32), ("shaderFloat64", U32), ("shaderInt64", U32), ("shaderInt16", U32),
    ("shaderResourceResidency", U32), ("shaderResourceMinLod", U32), ("sparseBinding", U32),
    ("sparseResidencyBuffer", U32), ("sparseResidencyImage2D", U32), ("sparseResidencyImage3D", U32),
    ("sparseResidency2Samples", U32), ("sparseResidency4Samples", U32),
    ("sparseResidency8Samples", U32), ("sparseResidency16Samples", U32),
    ("sparseResidencyAliased", U32), ("variableMultisampleRate", U32), ("inheritedQueries", U32)])

VkPhysicalDeviceFeatures2 = _struct("VkPhysicalDeviceFeatures2", [
    ("sType", I32), ("pNext", VP), ("features", VkPhysicalDeviceFeatures)])

VkPhysicalDeviceVulkan11Features = _struct("VkPhysicalDeviceVulkan11Features", [
    ("sType", I32), ("pNext", VP), ("storageBuffer16BitAccess", U32),
    ("uniformAndStorageBuffer16BitAccess", U32), ("storagePushConstant16", U32),
    ("storageInputOutput16", U32), ("multiview", U32), ("multiviewGeometryShader", U32),
    ("multiviewTessellationShader", U32), ("variablePointersStorageBuffer", U32),
    ("variablePointers", U32), ("protectedMemory", U32), ("samplerYcbcrConversion", U32),
    ("shaderDrawParameters", U32)])

VkPhysicalDeviceVulkan12Features = _struct("VkPhysicalDeviceVulkan12Features", [
    ("sType", I32), ("pNext", VP), ("samplerMirrorClampToEdge", U32), ("drawIndirectCount", U32),
    ("storageBuffer8BitAccess", U32), ("uniformAndStorageBuffer8BitAccess", U32),
    ("storagePushConstant8", U32), ("shaderBufferInt64Atomics", U32),
    ("shaderSharedInt64Atomics", U32), ("shaderFloat16", U32), ("shaderInt8", U32),
    ("descriptorIndexing", U32), ("shaderInputAttachmentArrayDynamicIndexing", U32),
    ("shaderUniformTexelBufferArrayDynamicIndexing", U32),
    ("shaderStorageTexelBufferArrayDynamicIndexing", U32),
    ("shaderUniformBufferArrayNonUniformIndexing", U32),
    ("shaderSampledImageArrayNonUniformIndexing", U32),
    ("shaderStorageBufferArrayNonUniformIndexing", U32),
    ("shaderStorageImageArrayNonUniformIndexing", U32),
    ("shaderInputAttachmentArrayNonUniformIndexing", U32),
    ("shaderUniformTexelBufferArrayNonUniformIndexing", U32),
    ("shaderStorageTexelBufferArrayNonUniformIndexing", U32),
    ("descriptorBindingUniformBufferUpdateAfterBind", U32),
    ("descriptorBindingSampledImageUpdateAfterBind", U32),
    ("descriptorBindingStorageImageUpdateAfterBind", U32),
    ("descriptorBindingStorageBufferUpdateAfterBind", U32),
    ("descriptorBindingUniformTexelBufferUpdateAfterBind", U32),
    ("descriptorBindingStorageTexelBufferUpdateAfterBind", U32),
    ("descriptorBindingUpdateUnusedWhilePending", U32), ("descriptorBindingPartiallyBound", U32),
    ("descriptorBindingVariableDescriptorCount", U32), ("runtimeDescriptorArray", U32),
    ("samplerFilterMinmax", U32), ("scalarBlockLayout", U32), ("imagelessFramebuffer", U32),
    ("uniformBufferStandardLayout", U32), ("shaderSubgroupExtendedTypes", U32),
    ("separateDepthStencilLayouts", U32), ("hostQueryReset", U32), ("timelineSemaphore", U32),
    ("bufferDeviceAddress", U32), ("bufferDeviceAddressCaptureReplay", U32),
    ("bufferDeviceAddressMultiDevice", U32), ("vulkanMemoryModel", U32),
    ("vulkanMemoryModelDeviceScope", U32), ("vulkanMemoryModelAvailabilityVisibilityChains", U32),
    ("shaderOutputViewportIndex", U32), ("shaderOutputLayer", U32),
    ("subgroupBroadcastDynamicId", U32)])

VkPhysicalDeviceVulkan13Features = _struct("VkPhysicalDeviceVulkan13Features", [
    ("sType", I32), ("pNext", VP), ("robustImageAccess", U32), ("inlineUniformBlock", U32),
    ("descriptorBindingInlineUniformBlockUpdateAfterBind", U32),
    ("pipelineCreationCacheControl", U32), ("privateData", U32),
    ("shaderDemoteToHelperInvocation", U32), ("shaderTerminateInvocation", U32),
    ("subgroupSizeControl", U32), ("computeFullSubgroups", U32), ("synchronization2", U32),
    ("textureCompressionASTC_HDR", U32), ("shaderZeroInitializeWorkgroupMemory", U32),
    ("dynamicRendering", U32), ("shaderIntegerDotProduct", U32), ("maintenance4", U32)])

VkApplicationInfo = _struct("VkApplicationInfo", [
    ("sType", I32), ("pNext", VP), ("pApplicationName", CP), ("applicationVersion", U32),
    ("pEngineName", CP), ("engineVersion", U32), ("apiVersion", U32)])

VkInstanceCreateInfo = _struct("VkInstanceCreateInfo", [
    ("sType", I32), ("pNext", VP), ("flags", U32), ("pApplicationInfo", VP),
    ("enabledLayerCount", U32), ("ppEnabledLayerNames", VP), ("enabledExtensionCount", U32),
    ("ppEnabledExtensionNames", VP)])

VkExtensionProperties = _struct("VkExtensionProperties", [
    ("extensionName", CHAR * VK_MAX_EXTENSION_NAME_SIZE), ("specVersion", U32)])

VkExtent3D = _struct("VkExtent3D", [
    ("width", U32), ("height", U32), ("depth", U32)])

VkQueueFamilyProperties = _struct("VkQueueFamilyProperties", [
    ("queueFlags", U32), ("queueCount", U32), ("timestampValidBits", U32),
    ("minImageTransferGranularity", VkExtent3D)])

VkDeviceQueueCreateInfo = _struct("VkDeviceQueueCreateInfo", [
    ("sType", I32), ("pNext", VP), ("flags", U32), ("queueFamilyIndex", U32), ("queueCount", U32),
    ("pQueuePriorities", VP)])

VkDeviceCreateInfo = _struct("VkDeviceCreateInfo", [
    ("sType", I32), ("pNext", VP), ("flags", U32), ("queueCreateInfoCount", U32),
    ("pQueueCreateInfos", VP), ("enabledLayerCount", U32), ("ppEnabledLayerNames", VP),
    ("enabledExtensionCount", U32), ("ppEnabledExtensionNames", VP), ("pEnabledFeatures", VP)])

VkMemoryType = _struct("VkMemoryType", [
    ("propertyFlags", U32), ("heapIndex", U32)])

VkMemoryHeap = _struct("VkMemoryHeap", [
    ("size", U64), ("flags", U32)])

VkPhysicalDeviceMemoryProperties = _struct("VkPhysicalDeviceMemoryProperties", [
    ("memoryTypeCount", U32), ("memoryTypes", VkMemoryType * VK_MAX_MEMORY_TYPES),
    ("memoryHeapCount", U32), ("memoryHeaps", VkMemoryHeap * VK_MAX_MEMORY_HEAPS)])

VkBufferCreateInfo = _struct("VkBufferCreateInfo", [
    ("sType", I32), ("pNext", VP), ("flags", U32), ("size", U64), ("usage", U32),
    ("sharingMode", I32), ("queueFamilyIndexCount", U32), ("pQueueFamilyIndices", VP)])

VkMemoryRequirements = _struct("VkMemoryRequirements", [
    ("size", U64), ("alignment", U64), ("memoryTypeBits", U32)])

VkMemoryAllocateInfo = _struct("VkMemoryAllocateInfo", [
    ("sType", I32), ("pNext", VP), ("allocationSize", U64), ("memoryTypeIndex", U32)])

VkMemoryAllocateFlagsInfo = _struct("VkMemoryAllocateFlagsInfo", [
    ("sType", I32), ("pNext", VP), ("flags", U32), ("deviceMask", U32)])

VkBufferDeviceAddressInfo = _struct("VkBufferDeviceAddressInfo", [
    ("sType", I32), ("pNext", VP), ("buffer", U64)])

VkShaderModuleCreateInfo = _struct("VkShaderModuleCreateInfo", [
    ("sType", I32), ("pNext", VP), ("flags", U32), ("codeSize", SIZE), ("pCode", VP)])

VkPushConstantRange = _struct("VkPushConstantRange", [
    ("stageFlags", U32), ("offset", U32), ("size", U32)])

VkPipelineLayoutCreateInfo = _struct("VkPipelineLayoutCreateInfo", [
    ("sType", I32), ("pNext", VP), ("flags", U32), ("setLayoutCount", U32), ("pSetLayouts", VP),
    ("pushConstantRangeCount", U32), ("pPushConstantRanges", VP)])

VkSpecializationMapEntry = _struct("VkSpecializationMapEntry", [
    ("constantID", U32), ("offset", U32), ("size", SIZE)])

VkSpecializationInfo = _struct("VkSpecializationInfo", [
    ("mapEntryCount", U32), ("pMapEntries", VP), ("dataSize", SIZE), ("pData", VP)])

VkPipelineShaderStageCreateInfo = _struct("VkPipelineShaderStageCreateInfo", [
    ("sType", I32), ("pNext", VP), ("flags", U32), ("stage", U32), ("module", U64), ("pName", CP),
    ("pSpecializationInfo", VP)])

VkComputePipelineCreateInfo = _struct("VkComputePipelineCreateInfo", [
    ("sType", I32), ("pNext", VP), ("flags", U32), ("stage", VkPipelineShaderStageCreateInfo),
    ("layout", U64), ("basePipelineHandle", U64), ("basePipelineIndex", I32)])

VkPipelineShaderStageRequiredSubgroupSizeCreateInfo = _struct("VkPipelineShaderStageRequiredSubgroupSizeCreateInfo", [
    ("sType", I32), ("pNext", VP), ("requiredSubgroupSize", U32)])

VkCommandPoolCreateInfo = _struct("VkCommandPoolCreateInfo", [
    ("sType", I32), ("pNext", VP), ("flags", U32), ("queueFamilyIndex", U32)])

VkCommandBufferAllocateInfo = _struct("VkCommandBufferAllocateInfo", [
    ("sType", I32), ("pNext", VP), ("commandPool", U64), ("level", I32), ("commandBufferCount", U32)])

VkCommandBufferBeginInfo = _struct("VkCommandBufferBeginInfo", [
    ("sType", I32), ("pNext", VP), ("flags", U32), ("pInheritanceInfo", VP)])

VkBufferCopy = _struct("VkBufferCopy", [
    ("srcOffset", U64), ("dstOffset", U64), ("size", U64)])

VkSubmitInfo = _struct("VkSubmitInfo", [
    ("sType", I32), ("pNext", VP), ("waitSemaphoreCount", U32), ("pWaitSemaphores", VP),
    ("pWaitDstStageMask", VP), ("commandBufferCount", U32), ("pCommandBuffers", VP),
    ("signalSemaphoreCount", U32), ("pSignalSemaphores", VP)])

VkFenceCreateInfo = _struct("VkFenceCreateInfo", [
    ("sType", I32), ("pNext", VP), ("flags", U32)])

VkQueryPoolCreateInfo = _struct("VkQueryPoolCreateInfo", [
    ("sType", I32), ("pNext", VP), ("flags", U32), ("queryType", I32), ("queryCount", U32),
    ("pipelineStatistics", U32)])

VkMemoryBarrier = _struct("VkMemoryBarrier", [
    ("sType", I32), ("pNext", VP), ("srcAccessMask", U32), ("dstAccessMask", U32)])

# Extension structures (the registry's vulkan_core.h, later than header 239)
VkPhysicalDeviceCooperativeMatrixFeaturesKHR = _struct("VkPhysicalDeviceCooperativeMatrixFeaturesKHR", [
    ("sType", I32), ("pNext", VP), ("cooperativeMatrix", U32), ("cooperativeMatrixRobustBufferAccess", U32)])

VkCooperativeMatrixPropertiesKHR = _struct("VkCooperativeMatrixPropertiesKHR", [
    ("sType", I32), ("pNext", VP), ("MSize", U32), ("NSize", U32), ("KSize", U32), ("AType", I32),
    ("BType", I32), ("CType", I32), ("ResultType", I32), ("saturatingAccumulation", U32), ("scope", I32)])

VkPhysicalDeviceCooperativeMatrix2FeaturesNV = _struct("VkPhysicalDeviceCooperativeMatrix2FeaturesNV", [
    ("sType", I32), ("pNext", VP), ("cooperativeMatrixWorkgroupScope", U32),
    ("cooperativeMatrixFlexibleDimensions", U32), ("cooperativeMatrixReductions", U32),
    ("cooperativeMatrixConversions", U32), ("cooperativeMatrixPerElementOperations", U32),
    ("cooperativeMatrixTensorAddressing", U32), ("cooperativeMatrixBlockLoads", U32)])

VkPhysicalDeviceCooperativeMatrix2PropertiesNV = _struct("VkPhysicalDeviceCooperativeMatrix2PropertiesNV", [
    ("sType", I32), ("pNext", VP), ("cooperativeMatrixWorkgroupScopeMaxWorkgroupSize", U32),
    ("cooperativeMatrixFlexibleDimensionsMaxDimension", U32),
    ("cooperativeMatrixWorkgroupScopeReservedSharedMemory", U32)])

VkCooperativeMatrixFlexibleDimensionsPropertiesNV = _struct("VkCooperativeMatrixFlexibleDimensionsPropertiesNV", [
    ("sType", I32), ("pNext", VP), ("MGranularity", U32), ("NGranularity", U32), ("KGranularity", U32),
    ("AType", I32), ("BType", I32), ("CType", I32), ("ResultType", I32), ("saturatingAccumulation", U32),
    ("scope", I32), ("workgroupInvocations", U32)])

VkPhysicalDeviceShaderBfloat16FeaturesKHR = _struct("VkPhysicalDeviceShaderBfloat16FeaturesKHR", [
    ("sType", I32), ("pNext", VP), ("shaderBFloat16Type", U32), ("shaderBFloat16DotProduct", U32),
    ("shaderBFloat16CooperativeMatrix", U32)])

# VK_KHR_pipeline_executable_properties (vulkan_core.h 1.3.239)
VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR = _struct(
    "VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR", [
        ("sType", I32), ("pNext", VP), ("pipelineExecutableInfo", U32)])

VkPipelineInfoKHR = _struct("VkPipelineInfoKHR", [
    ("sType", I32), ("pNext", VP), ("pipeline", U64)])

VkPipelineExecutablePropertiesKHR = _struct("VkPipelineExecutablePropertiesKHR", [
    ("sType", I32), ("pNext", VP), ("stages", U32), ("name", CHAR * VK_MAX_DESCRIPTION_SIZE),
    ("description", CHAR * VK_MAX_DESCRIPTION_SIZE), ("subgroupSize", U32)])

VkPipelineExecutableInfoKHR = _struct("VkPipelineExecutableInfoKHR", [
    ("sType", I32), ("pNext", VP), ("pipeline", U64), ("executableIndex", U32)])

VkPipelineExecutableStatisticValueKHR = type("VkPipelineExecutableStatisticValueKHR", (ctypes.Union,), {
    "_fields_": [("b32", U32), ("i64", ctypes.c_int64), ("u64", U64), ("f64", ctypes.c_double)]})

VkPipelineExecutableStatisticKHR = _struct("VkPipelineExecutableStatisticKHR", [
    ("sType", I32), ("pNext", VP), ("name", CHAR * VK_MAX_DESCRIPTION_SIZE),
    ("description", CHAR * VK_MAX_DESCRIPTION_SIZE), ("format", I32),
    ("value", VkPipelineExecutableStatisticValueKHR)])

VkPipelineExecutableInternalRepresentationKHR = _struct("VkPipelineExecutableInternalRepresentationKHR", [
    ("sType", I32), ("pNext", VP), ("name", CHAR * VK_MAX_DESCRIPTION_SIZE),
    ("description", CHAR * VK_MAX_DESCRIPTION_SIZE), ("isText", U32), ("dataSize", SIZE), ("pData", VP)])


# ---------------------------------------------------------------------------------- functions

P = ctypes.POINTER
PU32 = P(U32)
# name -> (argument types); every function returns VkResult unless listed in _VOID
_PROTOTYPES = {
    "vkCreateInstance": [VP, VP, P(VP)],
    "vkDestroyInstance": [VP, VP],
    "vkEnumerateInstanceVersion": [PU32],
    "vkEnumeratePhysicalDevices": [VP, PU32, VP],
    "vkGetPhysicalDeviceProperties2": [VP, VP],
    "vkGetPhysicalDeviceFeatures2": [VP, VP],
    "vkGetPhysicalDeviceQueueFamilyProperties": [VP, PU32, VP],
    "vkGetPhysicalDeviceMemoryProperties": [VP, VP],
    "vkEnumerateDeviceExtensionProperties": [VP, CP, PU32, VP],
    "vkCreateDevice": [VP, VP, VP, P(VP)],
    "vkDestroyDevice": [VP, VP],
    "vkDeviceWaitIdle": [VP],
    "vkGetDeviceQueue": [VP, U32, U32, P(VP)],
    "vkCreateBuffer": [VP, VP, VP, P(HANDLE)],
    "vkDestroyBuffer": [VP, HANDLE, VP],
    "vkGetBufferMemoryRequirements": [VP, HANDLE, VP],
    "vkAllocateMemory": [VP, VP, VP, P(HANDLE)],
    "vkFreeMemory": [VP, HANDLE, VP],
    "vkBindBufferMemory": [VP, HANDLE, HANDLE, U64],
    "vkMapMemory": [VP, HANDLE, U64, U64, U32, P(VP)],
    "vkUnmapMemory": [VP, HANDLE],
    "vkGetBufferDeviceAddress": [VP, VP],
    "vkCreateShaderModule": [VP, VP, VP, P(HANDLE)],
    "vkDestroyShaderModule": [VP, HANDLE, VP],
    "vkCreatePipelineLayout": [VP, VP, VP, P(HANDLE)],
    "vkDestroyPipelineLayout": [VP, HANDLE, VP],
    "vkCreateComputePipelines": [VP, HANDLE, U32, VP, VP, P(HANDLE)],
    "vkDestroyPipeline": [VP, HANDLE, VP],
    "vkCreateCommandPool": [VP, VP, VP, P(HANDLE)],
    "vkDestroyCommandPool": [VP, HANDLE, VP],
    "vkAllocateCommandBuffers": [VP, VP, P(VP)],
    "vkResetCommandBuffer": [VP, U32],
    "vkBeginCommandBuffer": [VP, VP],
    "vkEndCommandBuffer": [VP],
    "vkCmdBindPipeline": [VP, I32, HANDLE],
    "vkCmdPushConstants": [VP, HANDLE, U32, U32, U32, VP],
    "vkCmdDispatch": [VP, U32, U32, U32],
    "vkCmdCopyBuffer": [VP, HANDLE, HANDLE, U32, VP],
    "vkCmdPipelineBarrier": [VP, U32, U32, U32, U32, VP, U32, VP, U32, VP],
    "vkCmdResetQueryPool": [VP, HANDLE, U32, U32],
    "vkCmdWriteTimestamp": [VP, U32, HANDLE, U32],
    "vkCreateQueryPool": [VP, VP, VP, P(HANDLE)],
    "vkDestroyQueryPool": [VP, HANDLE, VP],
    "vkGetQueryPoolResults": [VP, HANDLE, U32, U32, SIZE, VP, U64, U32],
    "vkCmdCopyQueryPoolResults": [VP, HANDLE, U32, U32, HANDLE, U64, U64, U32],
    "vkFreeCommandBuffers": [VP, HANDLE, U32, VP],
    "vkQueueSubmit": [VP, U32, VP, HANDLE],
    "vkCreateFence": [VP, VP, VP, P(HANDLE)],
    "vkDestroyFence": [VP, HANDLE, VP],
    "vkResetFences": [VP, U32, P(HANDLE)],
    "vkWaitForFences": [VP, U32, P(HANDLE), U32, U64],
    "vkGetFenceStatus": [VP, HANDLE],
    "vkGetInstanceProcAddr": [VP, CP],
    "vkGetDeviceProcAddr": [VP, CP],
}
_VOID = {"vkDestroyInstance", "vkGetPhysicalDeviceProperties2", "vkGetPhysicalDeviceFeatures2",
         "vkGetPhysicalDeviceQueueFamilyProperties", "vkGetPhysicalDeviceMemoryProperties",
         "vkDestroyDevice", "vkGetDeviceQueue", "vkDestroyBuffer", "vkGetBufferMemoryRequirements",
         "vkFreeMemory", "vkUnmapMemory", "vkDestroyShaderModule", "vkDestroyPipelineLayout",
         "vkDestroyPipeline", "vkDestroyCommandPool", "vkCmdBindPipeline", "vkCmdPushConstants",
         "vkCmdDispatch", "vkCmdCopyBuffer", "vkCmdPipelineBarrier", "vkCmdResetQueryPool",
         "vkCmdWriteTimestamp", "vkDestroyQueryPool", "vkDestroyFence", "vkCmdCopyQueryPoolResults",
         "vkFreeCommandBuffers"}
_RESTYPES = {"vkGetBufferDeviceAddress": U64, "vkGetInstanceProcAddr": VP, "vkGetDeviceProcAddr": VP}

# Instance-level extension functions, reached through vkGetInstanceProcAddr
EXTENSION_PROTOTYPES = {
    "vkGetPhysicalDeviceCooperativeMatrixPropertiesKHR": [VP, PU32, VP],
    "vkGetPhysicalDeviceCooperativeMatrixFlexibleDimensionsPropertiesNV": [VP, PU32, VP],
}
# Device-level extension functions, reached through vkGetDeviceProcAddr (of an enabled extension)
DEVICE_EXTENSION_PROTOTYPES = {
    "vkGetPipelineExecutablePropertiesKHR": [VP, VP, PU32, VP],
    "vkGetPipelineExecutableStatisticsKHR": [VP, VP, PU32, VP],
    "vkGetPipelineExecutableInternalRepresentationsKHR": [VP, VP, PU32, VP],
}

LOADER_NAMES = ("libvulkan.so.1", "libvulkan.so", "vulkan-1.dll", "libvulkan.1.dylib")


class Loader:
    """The Vulkan loader's functions: `vk.vkCreateInstance(...)` and so on, typed."""

    def __init__(self, library):
        self.library = library
        for name, argtypes in _PROTOTYPES.items():
            function = getattr(library, name)
            function.argtypes = argtypes
            function.restype = None if name in _VOID else _RESTYPES.get(name, I32)
            setattr(self, name, function)

    def instance_function(self, instance, name):
        """An extension function of `instance`, or None when the loader has none by that name."""
        address = self.vkGetInstanceProcAddr(instance, name.encode())
        if not address:
            return None
        return ctypes.CFUNCTYPE(I32, *EXTENSION_PROTOTYPES[name])(address)

    def device_function(self, device, name):
        """An extension function of `device` (its extension enabled), or None when the
        driver has none by that name (Vulkan 1.3, 4.1: vkGetDeviceProcAddr returns NULL)."""
        address = self.vkGetDeviceProcAddr(device, name.encode())
        if not address:
            return None
        return ctypes.CFUNCTYPE(I32, *DEVICE_EXTENSION_PROTOTYPES[name])(address)


_loader = None


def load():
    """The process's one Loader; DeviceUnavailable when no Vulkan loader can be opened."""
    global _loader
    if _loader is None:
        errors = []
        for name in LOADER_NAMES:
            try:
                library = ctypes.CDLL(name)
            except OSError as error:
                errors.append(f"{name}: {error}")
                continue
            _loader = Loader(library)
            break
        else:
            raise DeviceUnavailable("no Vulkan loader could be opened (" + "; ".join(errors) +
                                    "): install libvulkan1 and a Vulkan driver (docs/gpu.md, Setup)")
    return _loader


def check(result, what):
    """Raise the clcoop exception of a failed VkResult (`what` names the call's purpose)."""
    if result >= 0:
        return result
    name = RESULT_NAMES.get(result, f"VkResult {result}")
    if result == ERROR_DEVICE_LOST:
        raise DeviceLost(f"the device was lost during {what} ({name}): a kernel may have faulted "
                         f"(GPU accesses are not bounds-checked: run it in the interpreter first) "
                         f"or the driver reset the GPU; this engine can no longer be used")
    if result in (ERROR_OUT_OF_DEVICE_MEMORY, ERROR_OUT_OF_HOST_MEMORY, ERROR_OUT_OF_POOL_MEMORY):
        raise DeviceOutOfMemory(f"out of memory during {what} ({name})")
    raise DeviceError(f"{what} failed: {name}")
