/* hd.h — SM_HD marks the few inline helpers that CUDA code runs on the GPU
 * as well (gpu/gpu_seed.cu): one definition, so host and device agree bit
 * for bit. */
#ifndef SM_HD_H
#define SM_HD_H

#ifdef __CUDACC__
#define SM_HD __host__ __device__
#else
#define SM_HD
#endif

#endif
