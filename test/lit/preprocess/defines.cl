// -D, -U, -cl-std and -triple set the macros clang would.
// RUN: %clcoop -E -DTILE=16 -DFLAG -DGONE=1 -UGONE %s -o - | FileCheck %s --check-prefix=DEF64
// RUN: %clcoop -E -D TILE=4 -cl-std=CL2.0 -triple spir-unknown-unknown %s -o - | FileCheck %s --check-prefix=DEF32
int tile = TILE;
int flag = FLAG;
#ifdef GONE
int gone;
#endif
int version = __OPENCL_C_VERSION__;
#ifdef __SPIR64__
int spir64;
#endif
int spir = __SPIR__;
int coop = __opencl_c_ext_cooperative_matrix + cl_khr_cooperative_matrix;
int fence = CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE;
// DEF64: int tile = 16 ;
// DEF64-NEXT: int flag = 1 ;
// DEF64-NOT: gone
// DEF64: int version = 300 ;
// DEF64: int spir64;
// DEF64: int spir = 1 ;
// DEF64-NEXT: int coop = 1 + 1 ;
// DEF64-NEXT: int fence = 0x01 | 0x02 ;
// DEF32: int tile = 4 ;
// DEF32: int version = 200 ;
// DEF32-NOT: spir64
// DEF32: int spir = 1 ;
