/* One kernel source for two compilers: NVRTC (CUDA C++) and OpenCL C. This prelude maps the few
 * constructs the kernels use onto each dialect, as hashcat's inc_vendor.h does. Nothing else in the
 * kernel files may be dialect-specific. */
#ifdef __OPENCL_VERSION__
typedef uchar u8;
typedef uint u32;
typedef ulong u64;
#define KERNEL __kernel
#define GLOBAL __global
/* A work-group-shared array declared inside a kernel, and a pointer parameter into one. */
#define LOCAL_ARRAY __local
#define LOCAL_PTR __local
#define DEVICE_FN static inline
#define GLOBAL_ID() ((u64)get_global_id(0))
#define GLOBAL_SIZE() ((u64)get_global_size(0))
#define LOCAL_ID() ((u32)get_local_id(0))
#define LOCAL_SIZE() ((u32)get_local_size(0))
#define BARRIER() barrier(CLK_LOCAL_MEM_FENCE)
#define ROTL32(x, n) rotate((u32)(x), (u32)(n))
#else
typedef unsigned char u8;
typedef unsigned int u32;
typedef unsigned long long u64;
#define KERNEL extern "C" __global__
#define GLOBAL
#define LOCAL_ARRAY __shared__
#define LOCAL_PTR
#define DEVICE_FN static __device__ __forceinline__
#define GLOBAL_ID() ((u64)blockIdx.x * blockDim.x + threadIdx.x)
#define GLOBAL_SIZE() ((u64)gridDim.x * blockDim.x)
#define LOCAL_ID() ((u32)threadIdx.x)
#define LOCAL_SIZE() ((u32)blockDim.x)
#define BARRIER() __syncthreads()
#define ROTL32(x, n) __funnelshift_l((u32)(x), (u32)(x), (n))
#endif

DEVICE_FN u32 bswap32(u32 x)
{
    return (x >> 24) | ((x >> 8) & 0xff00u) | ((x << 8) & 0xff0000u) | (x << 24);
}

DEVICE_FN u64 bswap64(u64 x)
{
    return ((u64)bswap32((u32)x) << 32) | (u64)bswap32((u32)(x >> 32));
}

/* Unroll the next loop completely (its trip count is a constant): both compilers take the pragma. */
#define UNROLL _Pragma("unroll")

/* Byte j (0 = least significant) of a little-endian word. */
#define BYTE(w, j) ((u32)((w) >> (8 * (j))) & 0xffu)
