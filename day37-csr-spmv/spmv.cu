// Day 37: sparse matrix times vector, y = A * x, with A stored as CSR.
//
// Which mapping of rows onto threads is fastest, why does the answer change with the matrix, and
// how close does each get to the memory system's limit (a device-to-device copy measured in the
// same run) and to cuSPARSE? SpMV does two flops per nonzero and moves at least eight bytes for
// them: it is a bandwidth problem. Three inputs, because one would hide half the lesson: a real
// skewed word matrix small enough for L2 (cuda-words.mtx), the regular 3D 7-point stencil and a
// power-law Graph500 Kronecker graph. Five kernels in teaching order: thread per row, warp per row,
// a sub-warp width chosen from the row lengths, nonzero tiles that give every block the same work,
// and thread per row with its loads issued first. A rule picks one of the last two from the row
// lengths before anything is timed, as a user must. cuSPARSE is the baseline, the CPU the judge.
//
// Build: nvcc -O3 -arch=sm_90 -o spmv spmv.cu -lcusparse
// clang-format off: the run lines are --help's text, one line each
// Run: ./spmv                  cuda-words.mtx, a 128^3 stencil, a scale-21 Kronecker graph
// Run: ./spmv --small          the same code paths on small inputs, for compute-sanitizer
// Run: ./spmv --full           the plot's data as well, with any inputs (evidence/full-*.txt)
// Run: ./spmv --stencil N      only the inputs named, in order: an N^3 stencil (N 2..640),
// Run: ./spmv --kron SCALE     a 2^SCALE-vertex Kronecker graph (SCALE 4..24), up to 8
// Run: ./spmv FILE.mtx         a Matrix Market file, alone or among the others
// Run: ./spmv --help           this list (-h too); transcripts of these runs: evidence/
// Full: ./spmv --full --stencil 64 --stencil 128 --stencil 256 --kron 18 --kron 20 --kron 22
// clang-format on

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cuda_runtime.h>
#include <cusparse.h>

// ---------------------------------------------------------------- constants
// The header's run lines, for --help (make check compares the two).
// clang-format off
static const char* const kUsage =
    "usage:\n"
    "  ./spmv                  cuda-words.mtx, a 128^3 stencil, a scale-21 Kronecker graph\n"
    "  ./spmv --small          the same code paths on small inputs, for compute-sanitizer\n"
    "  ./spmv --full           the plot's data as well, with any inputs (evidence/full-*.txt)\n"
    "  ./spmv --stencil N      only the inputs named, in order: an N^3 stencil (N 2..640),\n"
    "  ./spmv --kron SCALE     a 2^SCALE-vertex Kronecker graph (SCALE 4..24), up to 8\n"
    "  ./spmv FILE.mtx         a Matrix Market file, alone or among the others\n"
    "  ./spmv --help           this list (-h too); transcripts of these runs: evidence/\n";
// clang-format on

static const int kWarpSize = 32;  // every GPU this course targets
// 8 warps hide latency in both phases of the tile kernel; its reduction gives 256 rows a lane each.
static const int kThreadsPerBlock = 256;
// A tile of 2048 products is 8 KiB of shared memory, so 8 blocks (an SM's 2048
// threads) still fit, and it is 8 nonzeros, two 16-byte loads, per thread.
static const int kTileNnz = 2048;
static const int kTileMaxRows = 256;        // a thread per row: the reduction makes one pass
static const int kTileMaxReduceSteps = 32;  // a tile closes before a row needs more serial steps
static const int kGuardFloats = 64;         // poisoned floats past y: a write of y[rows] is caught
static const int kWarmupRuns = 3;           // the first launch of each kernel loads it
// One graph replay of 20 calls lifts the smallest window far above timer noise.
static const int kTimedRuns = 20;
// Loads in flight before the first gather: the stencil's 7 in one step.
static const int kLoadsFirst = 8;
// The inputs the rule's goal is judged on: past launch and L2 effects.
static const int kLargeNnz = 1000000;
static const int kMaxInputs = 8;  // more is a typo, not a benchmark
// Defaults: the stencil's 142 MB and the graph's 533 MB of compulsory traffic (the host part
// counts it) are several times the H200's 60 MiB L2, so both are timed from HBM, not from cache.
static const char* const kWordsPath = "cuda-words.mtx";
static const int kDefaultStencil = 128, kDefaultKronScale = 21;
// --small: still empty rows, split rows and a last tile, for compute-sanitizer.
static const int kSmallStencil = 16, kSmallKronScale = 14;
static const int kMinStencil = 2, kMaxStencil = 640;     // 7 * 640^3 nonzeros still fit in int32
static const int kMinKronScale = 4, kMaxKronScale = 24;  // 2^24 * 32 stored entries fit in int32
static const int kKronEdgeFactor = 16;                   // Graph500's edges per vertex
static const double kKronA = 0.57, kKronB = 0.19, kKronC = 0.19;  // and its initiator
// Fixed seeds: every run of every machine draws the same matrices and x.
static const uint64_t kSeedKron = 0x5eed0037a11ce5ULL, kSeedValues = 0x7a1e5eed37ULL,
                      kSeedX = 0x0ddba11c0ffeeULL;
// The copy ceiling moves 1 GiB each way, far beyond L2 (64 MiB with --small, for the sanitizers).
static const size_t kCopyBytes = (size_t)1 << 30, kCopyBytesSmall = (size_t)64 << 20;

static_assert(kThreadsPerBlock % kWarpSize == 0, "a block is whole warps");
static_assert(kTileNnz % 4 == 0, "the tile is loaded four nonzeros at a time");
static_assert(kTileMaxRows <= kThreadsPerBlock, "one thread per tile row");
static_assert((2LL * kKronEdgeFactor << kMaxKronScale) <= INT32_MAX, "kron offsets fit in int32");

// ---------------------------------------------------------------- error macros
#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t status_ = (call);                                            \
        if (status_ != cudaSuccess) {                                            \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                    cudaGetErrorString(status_));                                \
            exit(EXIT_FAILURE);                                                  \
        }                                                                        \
    } while (0)

#define CUSPARSE_CHECK(call)                                                     \
    do {                                                                         \
        cusparseStatus_t status_ = (call);                                       \
        if (status_ != CUSPARSE_STATUS_SUCCESS) {                                \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                    cusparseGetErrorString(status_));                            \
            exit(EXIT_FAILURE);                                                  \
        }                                                                        \
    } while (0)

// ---------------------------------------------------------------- data
// CSR: row r's entries are colIndices[rowOffsets[r] .. rowOffsets[r + 1]), columns ascending, no
// duplicates. int32 offsets, as cuSPARSE and the kernels index; every builder keeps nnz below 2^31.
struct HostMatrix {
    char name[176];         // short id used in tables and the plot (a file's: its name, quoted)
    char description[256];  // one line for the reader
    int rows, cols, nnz;
    long long merged;              // duplicates the reader summed; -1 when generated
    int *rowOffsets, *colIndices;  // rows + 1, nnz
    float *values, *x;             // nnz, cols
};

// One block of the tile kernel's schedule: rows [rowBegin, rowEnd) whose nonzeros fit a tile
// (chunk = -1), or chunk 0 .. chunkCount - 1 of a row too long for one, the chunks side by side.
// Built once per matrix on the host, like cuSPARSE's preprocess.
struct RowBlock {
    int rowBegin, rowEnd, chunk, chunkCount;
};

enum InputKind {
    kInputFile,
    kInputStencil,
    kInputKron
};
// The variants compared: the lesson's five kernels, then cuSPARSE's two CSR algorithms.
enum Kernel {
    kThreadPerRow,
    kWarpPerRow,
    kSubWarp,
    kNnzTile,
    kLoadsFirstKernel,
    kKernelCount
};
static const int kCusparseAlgs = 2, kVariants = kKernelCount + kCusparseAlgs;
static const char* const kVariantNames[kVariants] = {
    "thread-per-row", "warp-per-row",      "sub-warp",         "nnz-tile",
    "loads-first",    "cuSPARSE CSR_ALG1", "cuSPARSE CSR_ALG2"};

// The CPU's answer for a row: y = A * x in double; sum |a_ij * x_j|, the scale of its rounding
// error.
struct RowRef {
    double y, absSum;
};
static const RowRef kEmptyRow = {0.0, 0.0};

// One input on the host: what the command line asked for, the matrix, the CPU's answer, the tiles.
struct Input {
    InputKind kind;
    const char* path;   // a file's
    const char* label;  // what a refusal names: the file's path, or the generated matrix's name
    int size;           // a stencil's N or a graph's scale
    HostMatrix m;
    // The CPU's answer, one per non-empty row: an empty row's is 0, and a file may declare
    // millions of them.
    RowRef* ref;
    double checksum;   // the sum of y
    RowBlock* blocks;  // tile schedule: blockCount blocks, chunkBlocks of them for longRows rows
    int blockCount, longRows, chunkBlocks;
    int subWarpLanes, ruleKernel;  // the lanes rule's width; the kernel rule's pick, a Kernel
};

// Device side of one input, in one bag so a launcher takes one pointer.
struct DeviceMatrix {
    int rows, cols, nnz, blockCount;
    int *rowOffsets, *colIndices;
    float *values, *x, *y;        // y: rows + kGuardFloats
    RowBlock* blocks;             // blockCount each, as the next two:
    float* chunkPartials;         // one partial sum per chunk block
    unsigned int* chunkArrivals;  // chunks finished, per long row
};

// ---------------------------------------------------------------- kernels
// 1. One thread per row: what everybody writes first, and correct. The loop bound is per lane, so a
// warp runs as long as its longest row while the lanes with shorter rows sit idle; and 32 lanes
// walk 32 different rows, so a warp's loads of colIndices and values hit up to 32 places.
// Launch: gridDim.x * blockDim.x >= rows.
// snippet: thread-per-row
__global__ void spmvThreadPerRow(int rows, const int* __restrict__ rowOffsets,
                                 const int* __restrict__ colIndices,
                                 const float* __restrict__ values, const float* __restrict__ x,
                                 float* __restrict__ y) {
    const long long row = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (row < rows) {
        float sum = 0.0f;
        for (int e = rowOffsets[row]; e < rowOffsets[row + 1]; ++e)
            sum += values[e] * x[colIndices[e]];
        y[row] = sum;
    }
}
// end snippet

// 2. One warp per row: the 32 lanes stride through one row together, so each load instruction reads
// 32 consecutive entries, and a shuffle ladder adds the 32 partial sums; a row of 3 entries leaves
// 29 lanes idle. The shuffles sit outside the guard so that every lane reaches them, as the full
// mask promises (the guard is warp uniform anyway).
// Launch: blockDim.x a multiple of 32; gridDim.x * blockDim.x >= 32 * rows.
// snippet: warp-per-row
__global__ void spmvWarpPerRow(int rows, const int* __restrict__ rowOffsets,
                               const int* __restrict__ colIndices, const float* __restrict__ values,
                               const float* __restrict__ x, float* __restrict__ y) {
    const long long thread = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long row = thread / kWarpSize;
    const int lane = threadIdx.x % kWarpSize;
    float sum = 0.0f;
    if (row < rows) {
        for (int e = rowOffsets[row] + lane; e < rowOffsets[row + 1]; e += kWarpSize)
            sum += values[e] * x[colIndices[e]];
    }
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    if (row < rows && lane == 0)
        y[row] = sum;
}
// end snippet

// 3. Lanes lanes per row, a power of two: a warp serves 32 / Lanes rows at once. When Lanes is near
// the row length few lanes idle, and the warp still reads a contiguous run of entries (its rows are
// neighbours in memory). The width argument of __shfl_down_sync keeps each ladder inside its group.
// Launch: blockDim.x a multiple of 32; gridDim.x * blockDim.x >= Lanes * rows.
// snippet: sub-warp
template <int Lanes>
__global__ void spmvSubWarp(int rows, const int* __restrict__ rowOffsets,
                            const int* __restrict__ colIndices, const float* __restrict__ values,
                            const float* __restrict__ x, float* __restrict__ y) {
    static_assert(Lanes >= 2 && Lanes <= 32 && (Lanes & (Lanes - 1)) == 0,
                  "lanes per row is a power of two from 2 to 32");
    const long long thread = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long row = thread / Lanes;
    const int lane = threadIdx.x % Lanes;
    float sum = 0.0f;
    if (row < rows) {
        for (int e = rowOffsets[row] + lane; e < rowOffsets[row + 1]; e += Lanes)
            sum += values[e] * x[colIndices[e]];
    }
    for (int offset = Lanes / 2; offset > 0; offset /= 2)
        sum += __shfl_down_sync(0xffffffffu, sum, offset, Lanes);
    if (row < rows && lane == 0)
        y[row] = sum;
}
// end snippet

// Lanes the tile kernel's reduction gives each row of a tile of `rows` rows: the largest power of
// two up to a warp that every row can have. Shared by the host schedule and the kernel.
__host__ __device__ static inline int tileReduceLanes(int rows) {
    int lanes = 32;
    while (lanes > 1 && lanes * rows > kThreadsPerBlock)
        lanes /= 2;
    return lanes;
}

// Adds v over the 32 lanes of a warp; lane 0 holds the total.
__device__ static inline float warpSum(float v) {
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    return v;
}

// 4. Nonzero tiles. The host cut the rows into tiles of at most 2048 nonzeros (and 256 rows), so
// every block has about the same bytes to move whatever the rows are. Load phase: the block streams
// the tile's column indices and values with 16-byte loads (every lane busy, every load full width),
// gathers x and parks the products in shared memory. Reduce phase: each row gets `lanes` threads
// that add its products from there. A row longer than a tile is cut into chunks, one block each,
// writing its partial sum to chunkPartials; the last chunk to arrive (counted with an atomic) adds
// them, writes y with a plain store (so nothing zeroes y first) and resets the counter.
// Launch: blockDim.x == kThreadsPerBlock, gridDim.x == the schedule's blocks, chunkArrivals zeroed.
// (The bound's double parentheses let code indexers such as ctags name the kernel, not the macro.)
// snippet: nnz-tile
__global__ void __launch_bounds__((kThreadsPerBlock))
    spmvNnzTile(const RowBlock* __restrict__ blocks, const int* __restrict__ rowOffsets,
                const int* __restrict__ colIndices, const float* __restrict__ values,
                const float* __restrict__ x, float* __restrict__ y,
                float* __restrict__ chunkPartials, unsigned int* __restrict__ chunkArrivals) {
    // 4 extra floats: the tile is indexed from the 16-byte boundary at or
    // below its first nonzero, so it may start up to 3 places in.
    __shared__ __align__(16) float products[kTileNnz + 4];
    __shared__ float warpTotals[kThreadsPerBlock / kWarpSize];
    __shared__ int lastChunk;
    const RowBlock block = blocks[blockIdx.x];
    const int tid = threadIdx.x;
    if (block.chunk < 0) {
        const int first = rowOffsets[block.rowBegin];
        const int last = rowOffsets[block.rowEnd];
        const int base = first & ~3;      // 16-byte boundary at or below first
        int vecBegin = (first + 3) & ~3;  // first 16-byte boundary in the tile
        if (vecBegin > last)
            vecBegin = last;
        int vecEnd = last & ~3;  // last 16-byte boundary in the tile
        if (vecEnd < vecBegin)
            vecEnd = vecBegin;
        // Up to 3 entries before the first boundary and after the last one.
        for (int e = first + tid; e < vecBegin; e += blockDim.x)
            products[e - base] = values[e] * x[colIndices[e]];
        for (int e = vecEnd + tid; e < last; e += blockDim.x)
            products[e - base] = values[e] * x[colIndices[e]];
        const int4* cols4 = reinterpret_cast<const int4*>(colIndices + vecBegin);
        const float4* vals4 = reinterpret_cast<const float4*>(values + vecBegin);
        float4* products4 = reinterpret_cast<float4*>(products + (vecBegin - base));
        const int quads = (vecEnd - vecBegin) / 4;
        for (int q = tid; q < quads; q += blockDim.x) {
            const int4 c = cols4[q];
            const float4 a = vals4[q];
            products4[q] = make_float4(a.x * x[c.x], a.y * x[c.y], a.z * x[c.z], a.w * x[c.w]);
        }
        __syncthreads();
        const int rows = block.rowEnd - block.rowBegin;
        const int lanes = tileReduceLanes(rows);
        const int group = tid / lanes;
        const int lane = tid % lanes;
        float sum = 0.0f;
        if (group < rows) {
            const int row = block.rowBegin + group;
            const int rowLast = rowOffsets[row + 1] - base;
            for (int k = rowOffsets[row] - base + lane; k < rowLast; k += lanes)
                sum += products[k];
        }
        for (int offset = lanes / 2; offset > 0; offset /= 2)
            sum += __shfl_down_sync(0xffffffffu, sum, offset, lanes);
        if (group < rows && lane == 0)
            y[block.rowBegin + group] = sum;
    } else {
        const int row = block.rowBegin;
        const int begin = rowOffsets[row] + block.chunk * kTileNnz;
        const int rowEnd = rowOffsets[row + 1];
        const int end = begin + kTileNnz < rowEnd ? begin + kTileNnz : rowEnd;
        float sum = 0.0f;
        for (int e = begin + tid; e < end; e += blockDim.x)
            sum += values[e] * x[colIndices[e]];
        sum = warpSum(sum);
        if (tid % kWarpSize == 0)
            warpTotals[tid / kWarpSize] = sum;
        __syncthreads();
        if (tid < kWarpSize)
            sum = warpSum(tid < kThreadsPerBlock / kWarpSize ? warpTotals[tid] : 0.0f);
        const int firstBlock = blockIdx.x - block.chunk;
        if (tid == 0) {
            chunkPartials[blockIdx.x] = sum;
            __threadfence();  // the partial is visible before the arrival counts
            const unsigned int arrived = atomicAdd(&chunkArrivals[firstBlock], 1u);
            lastChunk = arrived == (unsigned int)block.chunkCount - 1u;
        }
        __syncthreads();
        if (lastChunk && tid < kWarpSize) {
            __threadfence();
            float total = 0.0f;
            // From L2 with __ldcg, not from a stale L1.
            for (int c = tid; c < block.chunkCount; c += kWarpSize)
                total += __ldcg(&chunkPartials[firstBlock + c]);
            total = warpSum(total);
            if (tid == 0) {
                y[row] = total;
                chunkArrivals[firstBlock] = 0u;
            }
        }
    }
}
// end snippet

// 5. Thread per row, loads first. On short rows all alike (the stencil's 4 to 7) thread per row
// idles no lane; what holds it back is that each product's load of x waits for its column index,
// entry after entry. Loading kLoadsFirst columns and values before the first gather puts them all
// in flight at once, and streaming loads (__ldcs) keep the matrix, read once, from evicting x from
// L1. A slot past the row's end multiplies x[0] by zero; the sum runs in kernel 1's order.
// Launch: gridDim.x * blockDim.x >= rows; cols >= 1.
// snippet: loads-first
__global__ void spmvLoadsFirst(int rows, const int* __restrict__ rowOffsets,
                               const int* __restrict__ colIndices, const float* __restrict__ values,
                               const float* __restrict__ x, float* __restrict__ y) {
    const long long row = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (row >= rows)
        return;
    const int end = rowOffsets[row + 1];
    float sum = 0.0f;
    for (int first = rowOffsets[row]; first < end; first += kLoadsFirst) {
        int col[kLoadsFirst];
        float value[kLoadsFirst];
#pragma unroll
        for (int k = 0; k < kLoadsFirst; ++k) {
            col[k] = first + k < end ? __ldcs(colIndices + first + k) : 0;
            value[k] = first + k < end ? __ldcs(values + first + k) : 0.0f;
        }
#pragma unroll
        for (int k = 0; k < kLoadsFirst; ++k)
            sum += value[k] * __ldg(x + col[k]);
    }
    y[row] = sum;
}
// end snippet

// ---------------------------------------------------------------- host memory
// `bytes` zeroed, or NULL after the one line that names the input (`who`), the bytes and what they
// were for.
static void* hostAlloc(const char* who, size_t bytes, const char* what) {
    void* p = calloc(1, bytes > 0 ? bytes : 1);
    if (!p)
        fprintf(stderr, "%s: out of host memory (%zu bytes for %s)\n", who, bytes, what);
    return p;
}

// True when an input fits in this machine's memory beside the *held bytes that the inputs before
// it keep; then adds what it keeps: row offsets and x (4 bytes a row, 4 a column), columns and
// values (8 a nonzero), the reference (16 a non-empty row) and the tiles (16 bytes each, see
// buildTileSchedule). For a while it also holds the row-length histogram and, in the GPU part, y's
// copy, and `building`: what making it holds (a file's entries, a graph's edges). Else false after
// the line that says so.
static bool fitsHost(const char* who, double* held, double rows, double cols, double nnz,
                     double building) {
    const double kept =
        4 * rows + 4 * cols + 8 * nnz + 16 * fmin(rows, nnz) +
        (rows / kTileMaxRows + 2 * nnz / (kTileMaxReduceSteps + 1) + 4 * nnz / kTileNnz + 2) *
            sizeof(RowBlock);
    const double need = *held + kept + 4 * (nnz + 1) + 4 * (rows + kGuardFloats) + building;
    const double has = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
    *held += kept;
    if (need <= has)
        return true;
    fprintf(stderr, "%s: needs about %.0f bytes of host memory, this machine has %.0f\n", who, need,
            has);
    return false;
}

// ---------------------------------------------------------------- CPU reference
static int rowLength(const HostMatrix* m, long long r) {
    return m->rowOffsets[r + 1] - m->rowOffsets[r];
}

// The judge: y = A * x in double, in row order, plus each row's sum of
// |a_ij * x_j|, which bounds how far any float summation order may land.
static bool computeReference(Input* in) {
    const HostMatrix* m = &in->m;
    // One per non-empty row, at most min(rows, nnz), and a spare that stays 0 (an empty row reads
    // it after the last non-empty one).
    const size_t filled = (size_t)(m->rows < m->nnz ? m->rows : m->nnz) + 1;
    in->ref = (RowRef*)hostAlloc(in->label, filled * sizeof(RowRef), "the CPU reference");
    if (!in->ref)
        return false;
    in->checksum = 0.0;
    RowRef* ref = in->ref;
    for (int r = 0; r < m->rows; ++r) {
        for (int e = m->rowOffsets[r]; e < m->rowOffsets[r + 1]; ++e) {
            const double p = (double)m->values[e] * (double)m->x[m->colIndices[e]];
            ref->y += p;
            ref->absSum += fabs(p);
        }
        in->checksum += ref->y;  // 0 for an empty row, whose entry is the next row's, still 0
        ref += rowLength(m, r) > 0;
    }
    return true;
}

// snippet: tolerance
// A float sum of k products, in any order, is off by at most about
// k * 2^-24 * sum|a_ij * x_j| (each product rounds once, each of the k - 1
// additions rounds a partial sum no larger than that total), and storing y
// rounds once more; k + 2 covers both with room. The 1e-30 floor lets an
// empty row, whose only right answer is 0, pass at exactly 0. Written as
// !(err <= tol) so that a NaN, which compares false with everything, fails.
static double rowTolerance(int rowLength, double absSum) {
    return (rowLength + 2) * 0x1p-24 * absSum + 1e-30;
}

static bool rowIsWrong(float got, double want, double tol) {
    return !(fabs((double)got - want) <= tol);
}
// end snippet

// Checks one GPU result: every row within its tolerance, the checksum of y
// within the sum of the tolerances, and the guard floats past y untouched.
// Prints the first bad row with got, want and tolerance; returns pass/fail.
static bool checkResult(const char* variant, const Input* in, const float* got, const char* when) {
    const HostMatrix* m = &in->m;
    int firstBad = -1, badRows = 0, guardHit = -1;
    double gotSum = 0.0, tolSum = 0.0;
    const RowRef* ref = in->ref;  // the next non-empty row's answer
    const RowRef* bad = NULL;     // the first wrong row's
    for (int r = 0; r < m->rows; ++r) {
        const RowRef* want = rowLength(m, r) > 0 ? ref++ : &kEmptyRow;
        const double tol = rowTolerance(rowLength(m, r), want->absSum);
        tolSum += tol;
        gotSum += (double)got[r];
        if (rowIsWrong(got[r], want->y, tol) && badRows++ == 0) {
            firstBad = r;
            bad = want;
        }
    }
    if (bad) {
        const int length = rowLength(m, firstBad);
        fprintf(stderr,
                "%s on %s%s: %d of %d rows wrong; first is row %d (length %d): got %.9g, want "
                "%.9g, tolerance %.3g\n",
                variant, m->name, when, badRows, m->rows, firstBad, length, (double)got[firstBad],
                bad->y, rowTolerance(length, bad->absSum));
    }
    const bool sumOk = fabs(gotSum - in->checksum) <= tolSum;  // the second check: y's total
    if (!sumOk)
        fprintf(stderr, "%s on %s%s: checksum of y is %.9g, want %.9g (tolerance %.3g)\n", variant,
                m->name, when, gotSum, in->checksum, tolSum);
    for (int g = 0; g < kGuardFloats && guardHit < 0; ++g) {
        uint32_t bits = 0;
        memcpy(&bits, &got[m->rows + g], sizeof(bits));
        guardHit = bits != 0xffffffffu ? g : -1;
    }
    if (guardHit >= 0)
        fprintf(stderr, "%s on %s%s: wrote y[%d], past the last row\n", variant, m->name, when,
                m->rows + guardHit);
    return firstBad < 0 && sumOk && guardHit < 0;
}

// ---------------------------------------------------------------- host analysis
// snippet: lanes-rule
// Lanes per row for the sub-warp kernel: the smallest power of two that
// covers the mean row length, between 2 and 32 (the rule of Bell and
// Garland's CUSP library). The mean, not the median, because the lanes must
// pay for the nonzeros, and on a skewed matrix the nonzeros sit in the long
// rows that the median does not see.
static int chooseSubWarpLanes(const HostMatrix* m) {
    const double mean = (double)m->nnz / m->rows;
    int lanes = 2;
    while (lanes < kWarpSize && lanes < mean)
        lanes *= 2;
    return lanes;
}
// end snippet

// snippet: kernel-rule
// The kernel to ship, chosen from the row lengths before anything is timed, as a user must: when
// every row is short (kLoadsFirst entries at most) thread per row idles no lane and the loads-first
// kernel feeds it; anything longer, or skewed, goes to the nonzero tiles, which give every block
// the same work whatever the rows.
static int chooseKernel(const HostMatrix* m) {
    for (int r = 0; r < m->rows; ++r)
        if (rowLength(m, r) > kLoadsFirst)
            return kNnzTile;
    return kLoadsFirstKernel;
}
// end snippet

static int compareInts(const void* a, const void* b) {
    return (*(const int*)a > *(const int*)b) - (*(const int*)a < *(const int*)b);
}

// Lane slots a mapping with `lanes` lanes per row issues: a warp holds 32 / lanes consecutive rows
// and runs until its slowest row is done, each step costing all 32 lanes (1 and 32: thread and warp
// per row); a lane that takes `batch` entries a step (loads first) pays for a whole batch.
static long long laneSlots(const HostMatrix* m, int lanes, int batch) {
    const int rowsPerWarp = kWarpSize / lanes;
    long long slots = 0;
    for (long long first = 0; first < m->rows; first += rowsPerWarp) {
        int steps = 0;
        for (long long r = first; r < first + rowsPerWarp && r < m->rows; ++r) {
            const int s = (rowLength(m, r) + lanes * batch - 1) / (lanes * batch) * batch;
            if (s > steps)
                steps = s;
        }
        slots += (long long)kWarpSize * steps;
    }
    return slots;
}

// The tile schedule. Rows are packed greedily into tiles; a tile closes when the next row would
// overflow its nonzeros or its 256 rows, or make the longest row need more than kTileMaxReduceSteps
// reduction steps (the reduce-step cap). A row longer than a tile is cut into chunks, one block
// each (see the kernel). At most `most` blocks: a tile closes at its kTileMaxRows rows, or when it
// and the next row hold over kTileNnz nonzeros (fewer than 2 nnz / kTileNnz such tiles, each row
// counted twice) or a row over kTileMaxReduceSteps long (2 nnz / (kTileMaxReduceSteps + 1)); the
// chunks are fewer than 2 nnz / kTileNnz; one tile closes at the end.
static bool buildTileSchedule(Input* in) {
    const HostMatrix* m = &in->m;
    const size_t rows = (size_t)m->rows, nnz = (size_t)m->nnz;
    const size_t most =
        rows / kTileMaxRows + 2 * nnz / (kTileMaxReduceSteps + 1) + 4 * nnz / kTileNnz + 2;
    in->blocks = (RowBlock*)hostAlloc(in->label, most * sizeof(RowBlock), "the tile schedule");
    if (!in->blocks)
        return false;
    in->blockCount = 0;
    in->longRows = 0;
    in->chunkBlocks = 0;
    int open = -1;  // first row of the open tile, which holds rows open .. r - 1; -1 when none
    int openNnz = 0, openMax = 0;
    for (int r = 0; r <= m->rows; ++r) {
        const int len = r < m->rows ? rowLength(m, r) : 0;
        if (open >= 0) {  // close it at the end, or before a row it cannot take
            const int rows = r - open + 1;
            const int longest = len > openMax ? len : openMax;
            const int lanes = tileReduceLanes(rows);
            if (r == m->rows || openNnz + len > kTileNnz || rows > kTileMaxRows ||
                (longest + lanes - 1) / lanes > kTileMaxReduceSteps) {
                const RowBlock tile = {open, r, -1, 0};
                in->blocks[in->blockCount++] = tile;
                open = -1;
            }
        }
        if (r == m->rows)
            break;
        if (len > kTileNnz) {
            const int chunks = (len + kTileNnz - 1) / kTileNnz;
            for (int c = 0; c < chunks; ++c) {
                const RowBlock chunk = {r, r + 1, c, chunks};
                in->blocks[in->blockCount++] = chunk;
            }
            ++in->longRows;
            in->chunkBlocks += chunks;
            continue;
        }
        if (open < 0) {
            open = r;
            openNnz = 0;
            openMax = 0;
        }
        openNnz += len;
        if (len > openMax)
            openMax = len;
    }
    return true;
}

// Lane slots of the tile kernel's load phase: each block's nonzeros in steps of the whole block.
// Its reduction, from shared memory, is not counted: there "nonzeros per slot" flatters it.
static long long tileSlots(const Input* in) {
    long long slots = 0;
    for (int b = 0; b < in->blockCount; ++b) {
        const RowBlock* rb = &in->blocks[b];
        long long count = (long long)in->m.rowOffsets[rb->rowEnd] - in->m.rowOffsets[rb->rowBegin];
        const long long rest = count - (long long)rb->chunk * kTileNnz;  // a chunk's part
        if (rb->chunk >= 0)
            count = rest < kTileNnz ? rest : kTileNnz;
        slots += (count + kThreadsPerBlock - 1) / kThreadsPerBlock * kThreadsPerBlock;
    }
    return slots;
}

// Bytes one SpMV must move at least: row offsets, column indices and values once, x once per
// column, y once per row. Reads of x that miss the caches again are not counted: GB/s by it is a
// lower bound. With xPerNonzero, x is read once per nonzero, as if no read of x hit a cache. The
// truth lies between.
static double compulsoryBytes(const HostMatrix* m, bool xPerNonzero) {
    return ((double)m->rows + 1) * 4 + (double)m->nnz * 8 +
           (xPerNonzero ? (double)m->nnz : (double)m->cols) * 4 + (double)m->rows * 4;
}

// GB/s of `bytes` moved in `ms` milliseconds.
static double gbPerSecond(double bytes, double ms) {
    return bytes / (ms * 1e-3) / 1e9;
}

// The host part's report on one input; false after the line that says memory ran out.
static bool printAnalysis(const Input* in, int index, int count) {
    const HostMatrix* m = &in->m;
    printf("\nInput %d of %d: %s, %s\n", index + 1, count, m->name, m->description);
    int longest = 0;
    for (int r = 1; r < m->rows; ++r)
        if (rowLength(m, r) > rowLength(m, longest))
            longest = r;
    const int maxLen = rowLength(m, longest);
    // Rows of each length, for the median: memory that grows with the nonzeros, not the rows.
    int* rowsOfLength =
        (int*)hostAlloc(in->label, ((size_t)maxLen + 1) * sizeof(int), "the row-length histogram");
    if (!rowsOfLength)
        return false;
    for (int r = 0; r < m->rows; ++r)
        ++rowsOfLength[rowLength(m, r)];
    int minLen = 0, median = 0, below = 0;  // below: the rows shorter than `median`
    while (median < maxLen && below + rowsOfLength[median] <= m->rows / 2)
        below += rowsOfLength[median++];
    while (rowsOfLength[minLen] == 0)
        ++minLen;
    printf("  %d rows, %d columns, %d nonzeros\n", m->rows, m->cols, m->nnz);
    if (m->merged >= 0)
        printf("  duplicates merged: %lld\n", m->merged);
    printf("  row length: min %d, median %d, mean %.2f, max %d (row %d); %d empty rows\n", minLen,
           median, (double)m->nnz / m->rows, maxLen, longest, rowsOfLength[0]);
    free(rowsOfLength);
    printf(
        "  bytes per SpMV: %.1f MB compulsory (offsets, columns, values, x once, y), %.1f MB if x "
        "were read once per nonzero\n",
        compulsoryBytes(m, false) / 1e6, compulsoryBytes(m, true) / 1e6);
    printf("  lanes-per-row rule: mean %.2f -> sub-warp with %d lanes per row\n",
           (double)m->nnz / m->rows, in->subWarpLanes);
    printf("  kernel rule: longest row %d %s %d -> %s\n", maxLen,
           maxLen <= kLoadsFirst ? "<=" : ">", kLoadsFirst, kVariantNames[in->ruleKernel]);
    printf(
        "  nnz-tile: %d blocks of at most %d nonzeros and %d rows; rows longer than a tile: %d, "
        "cut into %d chunk blocks\n",
        in->blockCount, kTileNnz, kTileMaxRows, in->longRows, in->chunkBlocks);
    printf("  lane slots (a lane for one step of its warp, busy or idle), from the row lengths:\n");
    printf("    %-22s %14s %16s\n", "mapping", "lane slots", "nonzeros/slot");
    const long long slots[kKernelCount] = {laneSlots(m, 1, 1), laneSlots(m, kWarpSize, 1),
                                           laneSlots(m, in->subWarpLanes, 1), tileSlots(in),
                                           laneSlots(m, 1, kLoadsFirst)};
    char lanes[24], label[48];
    snprintf(lanes, sizeof(lanes), " (%d lanes)", in->subWarpLanes);
    for (int k = 0; k < kKernelCount; ++k) {
        snprintf(label, sizeof(label), "%s%s", kVariantNames[k], k == kSubWarp ? lanes : "");
        printf("    %-22s %14lld %15.1f%%\n", label, slots[k],
               slots[k] > 0 ? 100.0 * m->nnz / (double)slots[k] : 0.0);
    }
    printf("  CPU reference (double): checksum sum(y) = %.9e\n", in->checksum);
    return true;
}

// ---------------------------------------------------------------- timing and launchers
// One line of the comparison, a lesson kernel (a Kernel of kVariantNames) or a cuSPARSE algorithm,
// behind one launch function so that checking and timing treat all alike. Each cuSPARSE algorithm
// has its own matrix descriptor, because cusparseSpMV_preprocess leaves its analysis on it.
struct Variant {
    int index, lanes;  // lanes: sub-warp only
    const DeviceMatrix* d;
    cudaStream_t stream;      // every call, and its graph capture, on it
    cusparseHandle_t handle;  // cuSPARSE only, with the next three
    cusparseSpMatDescr_t matrix;
    cusparseDnVecDescr_t x, y;
    void* buffer;
    bool passed;
    double ms;
};

static const float kAlpha = 1.0f, kBeta = 0.0f;  // y = 1 * A * x + 0 * y
static const cusparseSpMVAlg_t kAlgs[kCusparseAlgs] = {CUSPARSE_SPMV_CSR_ALG1,
                                                       CUSPARSE_SPMV_CSR_ALG2};

// The four row mappings share one signature, so one launch line serves them (lanes a power of two).
typedef void (*RowKernel)(int, const int*, const int*, const float*, const float*, float*);

static void launchVariant(const Variant* v) {
    const DeviceMatrix* d = v->d;
    if (v->index >= kKernelCount) {
        CUSPARSE_CHECK(cusparseSpMV(v->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &kAlpha, v->matrix,
                                    v->x, &kBeta, v->y, CUDA_R_32F, kAlgs[v->index - kKernelCount],
                                    v->buffer));
        return;
    }
    if (v->index == kNnzTile) {
        spmvNnzTile<<<d->blockCount, kThreadsPerBlock, 0, v->stream>>>(
            d->blocks, d->rowOffsets, d->colIndices, d->values, d->x, d->y, d->chunkPartials,
            d->chunkArrivals);
    } else {
        // Each row mapping, by Kernel, with its threads per row; the sub-warp's instance by lanes.
        const RowKernel kernels[kKernelCount] = {spmvThreadPerRow, spmvWarpPerRow, NULL, NULL,
                                                 spmvLoadsFirst};
        const RowKernel subWarp[] = {spmvSubWarp<2>, spmvSubWarp<4>, spmvSubWarp<8>,
                                     spmvSubWarp<16>, spmvSubWarp<32>};
        const int lanes[kKernelCount] = {1, kWarpSize, v->lanes, 0, 1};
        const RowKernel kernel =
            v->index == kSubWarp ? subWarp[ilogb(v->lanes) - 1] : kernels[v->index];
        const long long blocks =
            ((long long)d->rows * lanes[v->index] + kThreadsPerBlock - 1) / kThreadsPerBlock;
        kernel<<<(int)blocks, kThreadsPerBlock, 0, v->stream>>>(
            d->rows, d->rowOffsets, d->colIndices, d->values, d->x, d->y);
    }
    CUDA_CHECK(cudaGetLastError());
}

// The milliseconds from start to stop, once stop is reached; both events are destroyed.
static float elapsedMs(cudaEvent_t start, cudaEvent_t stop) {
    float ms = 0.0f;
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms;
}

// snippet: time-ms
// Times kTimedRuns calls as one replay of a CUDA graph that captured them on the variant's stream:
// launched one by one from the host, a call of a few microseconds runs at the host's pace. Warm-up
// first (lazy loading makes each kernel's first launch load it), then one untimed replay.
static float timeMs(const Variant* v) {
    const cudaStream_t stream = v->stream;
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    cudaEvent_t start, stop;
    for (int i = 0; i < kWarmupRuns; ++i)
        launchVariant(v);
    CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    for (int i = 0; i < kTimedRuns; ++i)
        launchVariant(v);
    CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaEventRecord(start, stream));
    CUDA_CHECK(cudaGraphLaunch(exec, stream));
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaGraphExecDestroy(exec));
    CUDA_CHECK(cudaGraphDestroy(graph));
    return elapsedMs(start, stop) / kTimedRuns;
}
// end snippet

// ---------------------------------------------------------------- GPU part
// A device copy of `bytes` from `host`, or an unset allocation when host is NULL.
static void* toDevice(const void* host, size_t bytes) {
    void* d = NULL;
    CUDA_CHECK(cudaMalloc(&d, bytes));
    if (host)
        CUDA_CHECK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
    return d;
}

// cuSPARSE's setup, outside every timed window: descriptors, the work buffer and preprocess (the
// analysis the library may do once per matrix, as the tile schedule is built once on the host).
static void setupCusparse(cusparseHandle_t handle, Variant* v) {
    const DeviceMatrix* d = v->d;
    const cusparseSpMVAlg_t alg = kAlgs[v->index - kKernelCount];
    size_t bufferBytes = 0;  // cuSPARSE's work buffer
    v->handle = handle;
    CUSPARSE_CHECK(cusparseCreateCsr(&v->matrix, d->rows, d->cols, d->nnz, d->rowOffsets,
                                     d->colIndices, d->values, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    CUSPARSE_CHECK(cusparseCreateDnVec(&v->x, d->cols, d->x, CUDA_R_32F));
    CUSPARSE_CHECK(cusparseCreateDnVec(&v->y, d->rows, d->y, CUDA_R_32F));
    CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &kAlpha,
                                           v->matrix, v->x, &kBeta, v->y, CUDA_R_32F, alg,
                                           &bufferBytes));
    CUDA_CHECK(cudaMalloc(&v->buffer, bufferBytes > 0 ? bufferBytes : 1));
    CUSPARSE_CHECK(cusparseSpMV_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &kAlpha,
                                           v->matrix, v->x, &kBeta, v->y, CUDA_R_32F, alg,
                                           v->buffer));
}

// Correctness first: every variant on a y poisoned with 0xFF bytes (NaN as a float, so a row never
// written fails rather than pass on a stale answer), checked before it is timed; one that fails is
// not timed. Then timing, and the last timed launch's result checked again: a kernel that keeps
// state between launches (the tile kernel's arrival counters) shows a fault only when run again.
static int checkAndTime(Variant* v, const Input* in, float* hostY) {
    const size_t yBytes = ((size_t)in->m.rows + kGuardFloats) * sizeof(float);
    int failures = 0, recheckFailures = 0;
    for (int i = 0; i < kVariants; ++i) {
        CUDA_CHECK(cudaMemset(v[i].d->y, 0xff, yBytes));
        launchVariant(&v[i]);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(hostY, v[i].d->y, yBytes, cudaMemcpyDeviceToHost));
        v[i].passed = checkResult(kVariantNames[i], in, hostY, "");
        if (!v[i].passed)
            ++failures;
    }
    if (failures == 0)
        printf("  all %d variants match the CPU on all %d rows and in sum; none wrote past y\n",
               kVariants, in->m.rows);
    for (int i = 0; i < kVariants; ++i) {
        if (!v[i].passed)
            continue;
        v[i].ms = timeMs(&v[i]);
        CUDA_CHECK(cudaMemcpy(hostY, v[i].d->y, yBytes, cudaMemcpyDeviceToHost));
        v[i].passed = checkResult(kVariantNames[i], in, hostY, " after the timed runs");
        if (!(v[i].ms > 0.0))
            fprintf(stderr, "%s on %s: time is not positive\n", kVariantNames[i], in->m.name);
        v[i].passed = v[i].passed && v[i].ms > 0.0;
        if (!v[i].passed)
            ++recheckFailures;
    }
    if (recheckFailures == 0)
        printf("  every result checked again after its timed runs: still matches\n");
    return failures + recheckFailures;
}

// Times for the headlines (0 where one failed): best lesson kernel, the rule's pick, cuSPARSE.
struct InputTimes {
    double bestMs, ruleMs, cusparseMs;
};

// One input on the device: matrix, x, y with its guard floats, tile schedule; arrivals zeroed.
static DeviceMatrix uploadInput(const Input* in) {
    const HostMatrix* m = &in->m;
    const size_t blocks = (size_t)in->blockCount, nnzBytes = (size_t)m->nnz * sizeof(int);
    DeviceMatrix d = {};
    d.rows = m->rows;
    d.cols = m->cols;
    d.nnz = m->nnz;
    d.blockCount = in->blockCount;
    d.rowOffsets = (int*)toDevice(m->rowOffsets, ((size_t)m->rows + 1) * sizeof(int));
    d.colIndices = (int*)toDevice(m->colIndices, nnzBytes);
    d.values = (float*)toDevice(m->values, nnzBytes);  // as many floats as ints
    d.x = (float*)toDevice(m->x, (size_t)m->cols * sizeof(float));
    d.y = (float*)toDevice(NULL, ((size_t)m->rows + kGuardFloats) * sizeof(float));
    d.blocks = (RowBlock*)toDevice(in->blocks, blocks * sizeof(RowBlock));
    d.chunkPartials = (float*)toDevice(NULL, blocks * sizeof(float));
    d.chunkArrivals = (unsigned int*)toDevice(NULL, blocks * sizeof(unsigned int));
    CUDA_CHECK(cudaMemset(d.chunkArrivals, 0, blocks * sizeof(unsigned int)));
    return d;
}

// One input on the GPU: upload, check and time every variant, then its table (time, bytes by the
// compulsory model, GB/s, share of the copy ceiling, ratio to cuSPARSE's faster algorithm), the
// plot's points, the best lesson kernel (known only after timing them all) and the rule's pick.
static int runInput(const Input* in, cusparseHandle_t handle, cudaStream_t stream, double copyGBs,
                    bool plot, InputTimes* times) {
    const HostMatrix* m = &in->m;
    float* hostY =
        (float*)hostAlloc(in->label, ((size_t)m->rows + kGuardFloats) * sizeof(float), "y's copy");
    if (!hostY)
        return 1;
    DeviceMatrix d = uploadInput(in);
    Variant v[kVariants] = {};
    for (int i = 0; i < kVariants; ++i) {
        v[i].index = i;
        v[i].lanes = in->subWarpLanes;
        v[i].d = &d;
        v[i].stream = stream;
        if (i >= kKernelCount)
            setupCusparse(handle, &v[i]);
    }
    printf("\nGPU, %s:\n", m->name);
    const int failures = checkAndTime(v, in, hostY);
    int sparseBest = -1, best = -1;
    for (int i = 0; i < kVariants; ++i) {
        int* winner = i < kKernelCount ? &best : &sparseBest;
        if (v[i].passed && (*winner < 0 || v[i].ms < v[*winner].ms))
            *winner = i;
    }
    times->cusparseMs = sparseBest >= 0 ? v[sparseBest].ms : 0.0;
    times->bestMs = best >= 0 ? v[best].ms : 0.0;
    const double bytes = compulsoryBytes(m, false);
    printf(
        "  time per call; bytes: the compulsory ones; speed-up: cuSPARSE's time over this one's\n"
        "  %-*s %-18s %12s%12s%14s%16s%17s\n",
        (int)strlen(m->name), "input", "variant", "time", "bytes", "bandwidth", "share of copy",
        "speed-up");
    for (int i = 0; i < kVariants; ++i) {
        if (!v[i].passed)
            continue;
        const double gbs = gbPerSecond(bytes, v[i].ms);
        printf("~ %s %-18s %9.4f ms  %7.1f MB  %7.1f GB/s  %5.1f%% of copy  %5.2fx cuSPARSE\n",
               m->name, kVariantNames[i], v[i].ms, bytes / 1e6, gbs, 100.0 * gbs / copyGBs,
               times->cusparseMs > 0.0 ? times->cusparseMs / v[i].ms : 0.0);
        if (plot && (i < kKernelCount || i == sparseBest))  // the plot: cuSPARSE's faster one
            printf("~ plot: gbps | %s | %s | %.1f\n",
                   i < kKernelCount ? kVariantNames[i] : "cuSPARSE", m->name, gbs);
    }
    if (plot)
        printf("~ plot: gbps | copy ceiling | %s | %.1f\n", m->name, copyGBs);
    if (best >= 0 && sparseBest >= 0)
        printf("~ %s best lesson kernel {%s}: %.2fx cuSPARSE (its faster algorithm here: {%s})\n",
               m->name, kVariantNames[best], times->cusparseMs / times->bestMs,
               kVariantNames[sparseBest]);
    times->ruleMs = v[in->ruleKernel].passed ? v[in->ruleKernel].ms : 0.0;
    if (times->ruleMs > 0.0 && sparseBest >= 0)
        printf("~ %s kernel rule's pick, %s: %.2fx cuSPARSE\n", m->name,
               kVariantNames[in->ruleKernel], times->cusparseMs / times->ruleMs);
    for (int i = kKernelCount; i < kVariants; ++i) {
        CUSPARSE_CHECK(cusparseDestroySpMat(v[i].matrix));
        CUSPARSE_CHECK(cusparseDestroyDnVec(v[i].x));
        CUSPARSE_CHECK(cusparseDestroyDnVec(v[i].y));
        CUDA_CHECK(cudaFree(v[i].buffer));
    }
    void* const all[] = {d.rowOffsets, d.colIndices, d.values,        d.x,
                         d.y,          d.blocks,     d.chunkPartials, d.chunkArrivals};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); ++i)
        CUDA_CHECK(cudaFree(all[i]));
    free(hostY);
    return failures;
}

// The GPU, and the ceiling: a device-to-device copy far larger than L2, bytes read plus bytes
// written, measured now, on this GPU. Returns its GB/s.
static double deviceAndCeiling(size_t bytes, cudaStream_t stream, bool plot) {
    cudaDeviceProp prop;  // the transcript's header records the driver and the runtime
    CUDA_CHECK(cudaSetDevice(0));
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    printf("\n~ GPU: {%s}, compute capability %d.%d, %d SMs\n", prop.name, prop.major, prop.minor,
           prop.multiProcessorCount);
    void *src = toDevice(NULL, bytes), *dst = toDevice(NULL, bytes);
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaMemset(src, 0x5a, bytes));
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    // Launched from the host, not replayed: a graph's copy node may run on a slower copy engine.
    for (int i = 0; i < kWarmupRuns + kTimedRuns; ++i) {
        if (i == kWarmupRuns)
            CUDA_CHECK(cudaEventRecord(start, stream));
        CUDA_CHECK(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToDevice, stream));
    }
    CUDA_CHECK(cudaEventRecord(stop, stream));
    const float ms = elapsedMs(start, stop) / kTimedRuns;
    CUDA_CHECK(cudaFree(dst));
    CUDA_CHECK(cudaFree(src));
    const double gbs = gbPerSecond(2.0 * (double)bytes, ms);
    printf("~ device-to-device copy of %.1f MB: %.4f ms, %.1f GB/s read + written (the ceiling)\n",
           bytes / 1e6, ms, gbs);
    if (plot)
        printf(
            "plotspec: gbps | bar | CSR SpMV bandwidth per kernel against cuSPARSE and the copy "
            "ceiling | input | GB/s (compulsory bytes)\n");
    return gbs;
}

// True when the GPU's free memory holds the copy ceiling's two buffers and, one at a time, each
// input: row offsets and y (4 bytes a row each), x (4 a column), columns and values (8 a nonzero),
// the tile schedule (24 bytes a block); cuSPARSE's work buffers, asked for later, come on top.
// Else false after the line that names what does not fit.
static bool fitsDevice(const Input* inputs, int count, size_t copyBytes) {
    size_t freeBytes = 0, totalBytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    for (int i = -1; i < count; ++i) {  // -1: the copy ceiling
        const HostMatrix* m = i >= 0 ? &inputs[i].m : NULL;
        const double need = m ? 8.0 * m->rows + 4.0 * m->cols + 8.0 * m->nnz +
                                    24.0 * inputs[i].blockCount + 4.0 * (kGuardFloats + 1)
                              : 2.0 * (double)copyBytes;
        if (need > (double)freeBytes) {
            fprintf(stderr, "%s: needs about %.0f bytes of GPU memory, the GPU has %zu free\n",
                    m ? inputs[i].label : "the copy ceiling", need, freeBytes);
            return false;
        }
    }
    return true;
}

// Step 5: every input against the copy ceiling, on one created stream that cuSPARSE shares; then
// the goals and headlines: the rule's pick against cuSPARSE at its worst over the inputs of
// kLargeNnz nonzeros or more, the best lesson kernel as a geomean over all, its share of the copy
// on the first stencil.
static int runGpuPart(const Input* inputs, int count, size_t copyBytes, bool plot) {
    cudaStream_t stream;
    CUDA_CHECK(cudaStreamCreate(&stream));  // blocking: the checks' plain copies wait for it
    const double copyGBs = deviceAndCeiling(copyBytes, stream, plot);
    cusparseHandle_t handle;
    CUSPARSE_CHECK(cusparseCreate(&handle));
    CUSPARSE_CHECK(cusparseSetStream(handle, stream));
    int failures = 0, logCount = 0;
    double logSum = 0.0, stencilFraction = -1.0, ruleMin = -1.0;
    for (int i = 0; i < count; ++i) {
        InputTimes times = {0.0, 0.0, 0.0};
        failures += runInput(&inputs[i], handle, stream, copyGBs, plot, &times);
        if (times.bestMs > 0.0 && times.cusparseMs > 0.0) {
            logSum += log(times.cusparseMs / times.bestMs);
            ++logCount;
        }
        const double bytes = compulsoryBytes(&inputs[i].m, false);
        if (inputs[i].kind == kInputStencil && times.bestMs > 0.0 && stencilFraction < 0.0)
            stencilFraction = gbPerSecond(bytes, times.bestMs) / copyGBs;
        const double rule = times.ruleMs > 0.0 ? times.cusparseMs / times.ruleMs : 0.0;
        if (inputs[i].m.nnz >= kLargeNnz && (ruleMin < 0.0 || rule < ruleMin))
            ruleMin = rule;
    }
    CUSPARSE_CHECK(cusparseDestroy(handle));
    CUDA_CHECK(cudaStreamDestroy(stream));
    const double geomean = logCount > 0 ? exp(logSum / logCount) : 0.0;
    if (ruleMin >= 0.0)
        printf("\n~ goal: the rule's pick >= 1.0x cuSPARSE on inputs of %d+ nonzeros: %.2f {%s}\n",
               kLargeNnz, ruleMin, ruleMin >= 1.0 ? "met" : "not met");
    if (stencilFraction >= 0.0)
        printf("~ goal: >= 85%% of the copy bandwidth on the stencil: %.1f%% {%s}\n",
               100.0 * stencilFraction, stencilFraction >= 0.85 ? "met" : "not met");
    if (ruleMin >= 0.0)
        printf("headline: rule_vs_cusparse_min_large = %.2f\n", ruleMin);
    printf("headline: best_vs_cusparse_geomean = %.2f\n", geomean);
    if (stencilFraction >= 0.0)
        printf("headline: stencil_copy_fraction = %.3f\n", stencilFraction);
    return failures;
}

// ---------------------------------------------------------------- plumbing
// ---- begin common/mmio.h ----
// The course's Matrix Market reader, copied verbatim into each lesson; make check compares the
// copy. mmRead() turns a `coordinate` file into 0-based COO triples sorted by (row, column),
// duplicates summed, a symmetric file's entry standing for (i, j) and (j, i). Anything else gets
// one line on stderr, `FILE: line N: what is wrong` (indices 1-based, as in the file), with nothing
// left held. Arrays grow with the entries read, never with the size line's claim: a lying header
// costs nothing.
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum MmField {
    MM_REAL,
    MM_INTEGER,
    MM_PATTERN
};
enum MmSymmetry {
    MM_GENERAL,
    MM_SYMMETRIC,
    MM_SKEW_SYMMETRIC
};
// One entry in 16 bytes, so that sorting moves one cache line's share, not three.
typedef struct {
    int row, col;  // 0-based
    double val;    // 1.0 in a pattern file
} MmEntry;
typedef struct {
    int rows, cols, entries;  // entries: stored after expansion and merging, sorted by (row, col)
    enum MmField field;
    enum MmSymmetry symmetry;
    long long declared, merged;  // entries on the size line; duplicates summed into an earlier one
    MmEntry* entry;
} MmMatrix;

// Per-row and per-column arrays cost about 8 bytes a row and a column (an int offset and a float of
// x or y); a matrix may take 64 bytes of them per entry, or 256 MiB whatever its entries. Beyond
// that the dimensions are not a sparse matrix's but a typo's.
#define MM_BYTES_PER_DIM 8LL
#define MM_DIM_BYTES_PER_ENTRY 64LL
#define MM_DIM_BYTES_FLOOR (256LL << 20)
#define MM_MAX_LINE (64 << 20)  // a longer line is not a Matrix Market line
// Below 2^128 - 2^103 a value rounds to a finite float (FLT_MAX itself printed with 8 digits is
// above FLT_MAX); at or beyond it, to infinity.
#define MM_FP32_LIMIT 3.4028235677973366e38
#define MM_QUOTE 40  // at most this many characters of a token are quoted back

typedef struct {
    FILE* f;
    const char* path;
    char* buf;
    long cap, start, end;
    long long line;
    int eof;
} MmLines;

static void mmFree(MmMatrix* m) {
    free(m->entry);
    m->entry = NULL;
    m->entries = 0;
}

// A token as a refusal quotes it: at most MM_QUOTE characters, anything unprintable as \xNN, so
// that a 10 MB token or an escape sequence never reaches the terminal whole. Three buffers in turn,
// for a message that quotes up to three tokens.
static const char* mmQuote(const char* s) {
    static char buffers[3][4 * MM_QUOTE + 8];
    static int turn = 0;
    char* out = buffers[turn];
    turn = (turn + 1) % 3;
    int n = 0;
    for (int shown = 0; *s && shown < MM_QUOTE; s++, shown++) {
        const unsigned char c = (unsigned char)*s;
        if (c >= 0x20 && c < 0x7f && c != '\\') {
            out[n++] = (char)c;
        } else {
            n += snprintf(out + n, 5, "\\x%02X", c);
        }
    }
    if (*s) {
        memcpy(out + n, "...", 3);
        n += 3;
    }
    out[n] = '\0';
    return out;
}

static int mmFail(const MmLines* r, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: line %lld: ", r->path, r->line);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

// The next line, NUL-terminated, CR and LF stripped; NULL at the end of the file, or with *err set
// after a read error or an overlong line (already reported).
static char* mmNextLine(MmLines* r, int* err) {
    for (;;) {
        char* s = r->buf + r->start;
        char* nl = (char*)memchr(s, '\n', (size_t)(r->end - r->start));
        if (nl || (r->eof && r->end > r->start)) {
            long len = nl ? (long)(nl - s) : r->end - r->start;
            r->start += len + (nl ? 1 : 0);
            if (len > 0 && s[len - 1] == '\r')
                len--;
            r->line++;
            // A NUL would end the line early and a CR inside it hides line ends: refuse both.
            const char* nul = (const char*)memchr(s, '\0', (size_t)len);
            if (nul) {
                *err = mmFail(r, "NUL byte at column %ld", (long)(nul - s) + 1);
                return NULL;
            }
            if (memchr(s, '\r', (size_t)len)) {
                *err = mmFail(
                    r, "a carriage return inside the line: CR-only line ends? (want LF or CRLF)");
                return NULL;
            }
            s[len] = '\0';  // the buffer keeps one spare byte for this
            return s;
        }
        if (r->eof)
            return NULL;
        memmove(r->buf, s, (size_t)(r->end - r->start));
        r->end -= r->start;
        r->start = 0;
        if (r->end + 1 >= r->cap) {
            char* bigger = r->cap < MM_MAX_LINE ? (char*)realloc(r->buf, (size_t)r->cap * 2) : NULL;
            if (!bigger) {
                r->line++;
                *err = mmFail(r, "longer than %d bytes", MM_MAX_LINE);
                return NULL;
            }
            r->buf = bigger;
            r->cap *= 2;
        }
        size_t got = fread(r->buf + r->end, 1, (size_t)(r->cap - 1 - r->end), r->f);
        r->end += (long)got;
        if (got > 0)
            continue;
        if (ferror(r->f)) {
            fprintf(stderr, "%s: cannot read: %s\n", r->path, strerror(errno));
            *err = 1;
            return NULL;
        }
        r->eof = 1;
    }
}

// Splits s in place at blanks; returns the field count (0 for a blank line), keeping up to cap.
static int mmSplit(char* s, char** tok, int cap) {
    int n = 0;
    for (char* t = strtok(s, " \t"); t; t = strtok(NULL, " \t"))
        if (n++ < cap)
            tok[n - 1] = t;
    return n;
}

// The next line that is neither a comment nor blank, split; NULL at the end or after an error.
static char* mmNextData(MmLines* r, int* err, char** tok, int cap, int* n) {
    for (;;) {
        char* s = mmNextLine(r, err);
        if (!s) {
            return NULL;
        }
        if (s[0] == '%') {
            continue;
        }
        *n = mmSplit(s, tok, cap);
        if (*n > 0) {
            return s;
        }
    }
}

// 1 when s is a whole decimal integer; *overflow when it is one too big for long long. Digits by
// hand: strtoll's locale and base handling cost more than the rest of an entry.
static int mmInteger(const char* s, long long* out, int* overflow) {
    const int negative = *s == '-';
    const char *p = s + (*s == '+' || *s == '-'), *digits = p;
    unsigned long long v = 0;
    for (*overflow = 0; *p >= '0' && *p <= '9'; p++) {
        *overflow |= v > (unsigned long long)LLONG_MAX / 10;
        v = v * 10 + (unsigned long long)(*p - '0');
    }
    *overflow |= v > (unsigned long long)LLONG_MAX;
    *out = *overflow ? LLONG_MAX : negative ? -(long long)v : (long long)v;
    return p != digits && *p == '\0';
}

// A decimal of at most 15 digits times a power of ten within 10^22 is two exact doubles and one
// rounding, so it equals strtod's correctly rounded answer (Clinger's fast path); anything else
// goes to strtod itself.
static double mmValue(const char* s, char** end) {
    static const double kPow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                      1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                      1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char* p = s + (*s == '+' || *s == '-');
    int digits = 0, scale = 0, over;
    long long exponent = 0;
    unsigned long long mantissa =
        0;  // unsigned: 20 digits wrap harmlessly before strtod takes over
    for (; *p >= '0' && *p <= '9'; p++, digits++)
        mantissa = mantissa * 10 + (unsigned long long)(*p - '0');
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, digits++, scale--)
            mantissa = mantissa * 10 + (unsigned long long)(*p - '0');
    if ((*p == 'e' || *p == 'E') && mmInteger(p + 1, &exponent, &over) && !over &&
        llabs(exponent) < 400) {
        scale += (int)exponent;
        p += strlen(p);
    }
    if (digits == 0 || digits > 15 || *p != '\0' || scale < -22 || scale > 22)
        return strtod(s, end);
    *end = (char*)p;
    const double v =
        scale < 0 ? (double)mantissa / kPow10[-scale] : (double)mantissa * kPow10[scale];
    return *s == '-' ? -v : v;
}

static int mmHeader(MmLines* r, MmMatrix* m) {
    static const char* const kFields[] = {"real", "integer", "pattern"};
    static const char* const kSymmetries[] = {"general", "symmetric", "skew-symmetric"};
    int err = 0, n = 0, f = 0, y = 0;
    char *tok[6], *s = mmNextLine(r, &err);
    if (err)
        return 1;
    if (!s) {
        r->line = 1;
        return mmFail(r, "empty file, expected a %%%%MatrixMarket banner");
    }
    if ((unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB && (unsigned char)s[2] == 0xBF)
        return mmFail(
            r, "a UTF-8 byte-order mark before the %%%%MatrixMarket banner (save without it)");
    n = mmSplit(s, tok, 6);
    for (int i = 0; i < n && i < 5; i++)
        for (char* c = tok[i]; *c; c++)
            *c = (char)tolower((unsigned char)*c);
    if (n == 0 || strcmp(tok[0], "%%matrixmarket") != 0)
        return mmFail(r, "not a Matrix Market file (no %%%%MatrixMarket banner)");
    if (n != 5)
        return mmFail(
            r, "banner must be `%%%%MatrixMarket matrix coordinate FIELD SYMMETRY`, found %d words",
            n);
    if (strcmp(tok[1], "matrix") != 0)
        return mmFail(r, "unsupported object '%s' (want matrix)", mmQuote(tok[1]));
    if (strcmp(tok[2], "coordinate") != 0)
        return mmFail(r, "unsupported format '%s' (want coordinate)", mmQuote(tok[2]));
    while (f < 3 && strcmp(tok[3], kFields[f]) != 0)
        f++;
    while (y < 3 && strcmp(tok[4], kSymmetries[y]) != 0)
        y++;
    if (f == 3)
        return mmFail(r, "unsupported field '%s' (want real, integer or pattern)", mmQuote(tok[3]));
    if (y == 3)
        return mmFail(r, "unsupported symmetry '%s' (want general, symmetric or skew-symmetric)",
                      mmQuote(tok[4]));
    m->field = (enum MmField)f;
    m->symmetry = (enum MmSymmetry)y;
    if (m->field == MM_PATTERN && m->symmetry == MM_SKEW_SYMMETRIC)
        return mmFail(r, "a pattern matrix cannot be skew-symmetric");

    s = mmNextData(r, &err, tok, 6, &n);
    if (!s) {
        if (err)
            return 1;
        r->line++;
        return mmFail(r, "end of file before the size line `ROWS COLS ENTRIES`");
    }
    long long size[3];
    int overflow = 0, over;  // size-line fields too big for long long
    if (n != 3)
        return mmFail(r, "bad size line, want ROWS COLS ENTRIES as integers, found %d fields", n);
    for (int i = 0; i < 3; i++) {
        if (!mmInteger(tok[i], &size[i], &over))
            return mmFail(r, "bad size line: '%s' is not an integer", mmQuote(tok[i]));
        if (size[i] < 0)
            return mmFail(r, "bad size line: '%s' is negative", mmQuote(tok[i]));
        overflow |= over;
    }
    if (overflow || size[0] > INT_MAX || size[1] > INT_MAX || size[2] > INT_MAX)
        return mmFail(r,
                      "sizes %s x %s with %s entries exceed the course's 32-bit indices (each must "
                      "be below 2^31)",
                      tok[0], tok[1], tok[2]);
    if (m->symmetry != MM_GENERAL && size[0] != size[1])
        return mmFail(r, "a %s matrix must be square, not %lld x %lld", kSymmetries[y], size[0],
                      size[1]);
    long long dimBytes = MM_BYTES_PER_DIM * (size[0] + size[1] + 2),
              allowed = MM_DIM_BYTES_PER_ENTRY * size[2];
    if (allowed < MM_DIM_BYTES_FLOOR)
        allowed = MM_DIM_BYTES_FLOOR;
    if (dimBytes > allowed)
        return mmFail(
            r,
            "%lld x %lld for %lld entries would need %lld bytes of per-row and per-column arrays "
            "(at most %lld for this many entries)",
            size[0], size[1], size[2], dimBytes, allowed);
    m->rows = (int)size[0];
    m->cols = (int)size[1];
    m->declared = size[2];
    return 0;
}

// Reads the entries into m->entry (count of them, a symmetric entry and its mirror counted twice).
static int mmEntries(MmLines* r, MmMatrix* m, long long* count) {
    const int want = m->field == MM_PATTERN ? 2 : 3;
    long long cap = 0, seen = 0, ij[2], iv;
    int err = 0, n = 0, over;
    char *tok[4], *end;
    while (mmNextData(r, &err, tok, 4, &n)) {
        if (seen == m->declared) {
            const int looksLikeEntry =
                n == want && mmInteger(tok[0], &ij[0], &over) && mmInteger(tok[1], &ij[1], &over);
            if (looksLikeEntry)
                return mmFail(r, "more entries than the %lld declared", m->declared);
            return mmFail(r, "text after the %lld declared entries: '%s'", m->declared,
                          mmQuote(tok[0]));
        }
        if (n != want)
            return mmFail(
                r,
                want == 2 ? "want ROW COL, found %d fields" : "want ROW COL VALUE, found %d fields",
                n);
        for (int k = 0; k < 2; k++) {
            const char* what = k == 0 ? "row" : "column";
            const long long hi = k == 0 ? m->rows : m->cols;
            if (!mmInteger(tok[k], &ij[k], &over))
                return mmFail(r, "%s index '%s' is not an integer", what, mmQuote(tok[k]));
            if (over || ij[k] < 1 || ij[k] > hi)
                return mmFail(r, "%s index %s outside 1..%lld (indices are 1-based)", what,
                              mmQuote(tok[k]), hi);
        }
        double v = 1.0;
        if (want == 3) {
            if (m->field == MM_INTEGER && !mmInteger(tok[2], &iv, &over))
                return mmFail(r, "value '%s' is not an integer (the field is integer)",
                              mmQuote(tok[2]));
            v = mmValue(tok[2], &end);
            if (end == tok[2] || *end != '\0')
                return mmFail(r, "value '%s' is not a number", mmQuote(tok[2]));
            if (!(fabs(v) < MM_FP32_LIMIT))
                return mmFail(r, "value '%s' is not a finite fp32 number", mmQuote(tok[2]));
        }
        if (m->symmetry == MM_SKEW_SYMMETRIC && ij[0] == ij[1])
            return mmFail(
                r, "diagonal entry (%lld, %lld) in a skew-symmetric file, whose diagonal is zero",
                ij[0], ij[1]);
        const int mirror = m->symmetry != MM_GENERAL && ij[0] != ij[1];
        if (*count + 1 + mirror > INT_MAX)
            return mmFail(r, "more than %d stored entries, beyond the course's 32-bit offsets",
                          INT_MAX);
        if (*count + 2 > cap) {
            const long long bigger = cap ? cap * 2 : 1024;
            MmEntry* grown = (MmEntry*)realloc(m->entry, (size_t)bigger * sizeof(MmEntry));
            if (!grown)
                return mmFail(r, "out of host memory after %lld entries (%lld bytes)", *count,
                              bigger * (long long)sizeof(MmEntry));
            m->entry = grown;
            cap = bigger;
        }
        // A mirror is stored with its column complemented (~col), so that the merge can tell an
        // entry the file holds from one the reader made (mmColumn reads both).
        const MmEntry given = {(int)ij[0] - 1, (int)ij[1] - 1, v};
        const MmEntry made = {given.col, ~given.row, m->symmetry == MM_SKEW_SYMMETRIC ? -v : v};
        m->entry[(*count)++] = given;
        if (mirror)
            m->entry[(*count)++] = made;
        seen++;
    }
    if (err)
        return 1;
    if (seen < m->declared) {
        r->line++;
        return mmFail(r, "end of file after %lld of %lld declared entries", seen, m->declared);
    }
    return 0;
}

static int mmColumn(const MmEntry* e) {
    return e->col < 0 ? ~e->col : e->col;
}

static int mmByColumn(const void* a, const void* b) {
    const int x = mmColumn((const MmEntry*)a), y = mmColumn((const MmEntry*)b);
    return (x > y) - (x < y);
}

// The line of the file that holds entry (row, col), 0-based, read again from the start: only a
// refusal pays for it.
static long long mmLineOf(MmLines* r, int row, int col) {
    int err = 0, n = 0, sizeLine = 1;
    char* tok[2];
    long long ij[2];
    int over;
    rewind(r->f);
    r->start = 0;
    r->end = 0;
    r->eof = 0;
    r->line = 0;
    if (!mmNextLine(r, &err))
        return 0;
    while (mmNextData(r, &err, tok, 2, &n)) {
        if (sizeLine) {
            sizeLine = 0;
            continue;
        }
        if (n >= 2 && mmInteger(tok[0], &ij[0], &over) && mmInteger(tok[1], &ij[1], &over) &&
            ij[0] == row + 1 && ij[1] == col + 1)
            return r->line;
    }
    return 0;
}

// A counting sort by row (skipped when the file is in row order already), then each row sorted by
// column: O(entries + rows) moves and short sorts. Duplicates are then neighbours and are summed.
// Returns 0, 1 when out of memory, 2 after refusing the file: a symmetric file that stores both
// (i, j) and (j, i), or duplicates that sum beyond fp32.
static int mmSortAndMerge(MmLines* r, MmMatrix* m, long long n) {
    long long e = 1, kept = 0;
    while (e < n && m->entry[e - 1].row <= m->entry[e].row)
        e++;
    const int inRowOrder = e >= n;  // as most files are, so no scatter and no second array
    int* rowStart = (int*)calloc((size_t)m->rows + 1, sizeof(int));
    int* next = (int*)malloc(((size_t)m->rows + 1) * sizeof(int));
    MmEntry* sorted = inRowOrder ? NULL : (MmEntry*)malloc((size_t)(n ? n : 1) * sizeof(MmEntry));
    if (!rowStart || !next || (!inRowOrder && !sorted)) {
        free(rowStart);
        free(next);
        free(sorted);
        return 1;
    }
    for (e = 0; e < n; e++)
        rowStart[m->entry[e].row + 1]++;
    for (int i = 0; i < m->rows; i++)
        rowStart[i + 1] += rowStart[i];
    if (!inRowOrder) {
        memcpy(next, rowStart, ((size_t)m->rows + 1) * sizeof(int));
        for (e = 0; e < n; e++)
            sorted[next[m->entry[e].row]++] = m->entry[e];
        free(m->entry);
        m->entry = sorted;
    }
    for (int i = 0; i < m->rows && n > 0; i++) {  // no entries: m->entry may be NULL
        MmEntry* row = m->entry + rowStart[i];
        const int len = rowStart[i + 1] - rowStart[i];
        if (len > 32) {
            qsort(row, (size_t)len, sizeof(MmEntry), mmByColumn);
            continue;
        }
        for (int k = 1; k < len; k++)  // short rows: an insertion sort beats qsort's calls
            for (int j = k; j > 0 && mmColumn(&row[j - 1]) > mmColumn(&row[j]); j--) {
                const MmEntry t = row[j];
                row[j] = row[j - 1];
                row[j - 1] = t;
            }
    }
    free(rowStart);
    free(next);
    int groupGiven = 0, groupMade = 0;  // what the entry being summed was made of
    for (e = 0; e < n; e++) {
        const MmEntry next = m->entry[e];
        const int made = next.col < 0;
        MmEntry* last = kept > 0 ? &m->entry[kept - 1] : NULL;
        if (last && last->row == next.row && last->col == mmColumn(&next)) {
            last->val += next.val;
        } else {
            last = &m->entry[kept++];
            *last = next;
            last->col = mmColumn(&next);
            groupGiven = 0;
            groupMade = 0;
        }
        groupGiven |= !made;
        groupMade |= made;
        if (groupGiven && groupMade) {
            const long long first = mmLineOf(r, last->col, last->row);
            const long long second = mmLineOf(r, last->row, last->col);
            fprintf(stderr,
                    "%s: lines %lld and %lld: entries (%d, %d) and (%d, %d) of a %s file, which "
                    "stores one triangle\n",
                    r->path, first, second, last->col + 1, last->row + 1, last->row + 1,
                    last->col + 1, m->symmetry == MM_SYMMETRIC ? "symmetric" : "skew-symmetric");
            return 2;
        }
        if (!(fabs(last->val) < MM_FP32_LIMIT)) {
            r->line = mmLineOf(r, last->row, last->col);
            mmFail(r, "entry (%d, %d) and its duplicates sum to %g, not a finite fp32 number",
                   last->row + 1, last->col + 1, last->val);
            return 2;
        }
    }
    m->merged = n - kept;
    m->entries = (int)kept;
    return 0;
}

// 0 on success; 1 after printing the one line that says why, with nothing held.
static int mmRead(const char* path, MmMatrix* m) {
    memset(m, 0, sizeof(*m));
    MmLines r = {NULL, path, NULL, 1 << 20, 0, 0, 0, 0};
    long long count = 0;
    r.f = fopen(path, "rb");
    if (!r.f) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return 1;
    }
    r.buf = (char*)malloc((size_t)r.cap);
    if (!r.buf) {
        fprintf(stderr, "%s: out of host memory (%ld bytes for the line buffer)\n", path, r.cap);
        fclose(r.f);
        return 1;
    }
    int failed = mmHeader(&r, m);
    if (!failed)
        failed = mmEntries(&r, m, &count);
    if (!failed) {
        const int merge = mmSortAndMerge(&r, m, count);
        if (merge == 1)
            fprintf(stderr, "%s: out of host memory sorting %lld entries (%lld bytes)\n", path,
                    count, count * (long long)sizeof(MmEntry));
        failed = merge != 0;
    }
    free(r.buf);
    fclose(r.f);
    if (failed)
        mmFree(m);
    return failed;
}
// ---- end common/mmio.h ----

static void freeInputs(Input* in, int count) {
    for (int i = 0; i < count; ++i) {
        void* const all[] = {in[i].m.rowOffsets, in[i].m.colIndices, in[i].m.values,
                             in[i].m.x,          in[i].ref,          in[i].blocks};
        for (size_t k = 0; k < sizeof(all) / sizeof(all[0]); ++k)
            free(all[k]);
    }
}

// splitmix64: a counter through a good mixer, both a stream (the Kronecker edges) and a hash of a
// position (values and x), so that a value depends on where it is, not on when it was made.
static uint64_t mix64(uint64_t z) {
    z += 0x9e3779b97f4a7c15ULL;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double uniform01(uint64_t* state) {
    *state += 0x9e3779b97f4a7c15ULL;
    return (double)(mix64(*state) >> 11) * 0x1p-53;
}

// A value in +-[0.5, 1.5): never zero, never all equal, both signs, so a
// wrong column, a dropped entry or a swapped sign all change the answer.
static float hashedValue(uint64_t seed, uint64_t a, uint64_t b) {
    const uint64_t h = mix64(seed ^ mix64(a * 0x100000001b3ULL + b));
    const float magnitude = 0.5f + (float)(h >> 40) * 0x1p-24f;
    return (h & 1) ? -magnitude : magnitude;
}

// Arrays for nnz entries (row offsets zeroed) and x, drawn like the values; freeInputs frees them.
// False after the line that names `who` and the bytes that were not there.
static bool allocMatrix(HostMatrix* m, const char* who, int rows, int cols, long long nnz) {
    const size_t nnzBytes = (size_t)nnz * sizeof(int);  // int and float alike
    m->rows = rows;
    m->cols = cols;
    m->nnz = (int)nnz;
    m->rowOffsets = (int*)hostAlloc(who, ((size_t)rows + 1) * sizeof(int), "row offsets");
    m->colIndices = (int*)(m->rowOffsets ? hostAlloc(who, nnzBytes, "column indices") : NULL);
    m->values = (float*)(m->colIndices ? hostAlloc(who, nnzBytes, "values") : NULL);
    m->x = (float*)(m->values ? hostAlloc(who, (size_t)cols * sizeof(float), "x") : NULL);
    if (!m->x)
        return false;
    for (int j = 0; j < cols; ++j)
        m->x[j] = hashedValue(kSeedX, (uint64_t)j, 0);
    return true;
}

// The 7-point stencil on an n^3 grid, row = (z * n + y) * n + x. Columns are
// written in ascending order: z-1, y-1, x-1, self, x+1, y+1, z+1.
// False after the line that says why: too big for this machine (`held` bytes are taken), or out of
// memory.
static bool makeStencil(int n, double* held, HostMatrix* m) {
    const int rows = n * n * n;
    const long long nnz = rows * 7LL - 6LL * n * n;  // each of the 6 faces loses one neighbour
    snprintf(m->name, sizeof(m->name), "stencil-%d", n);
    snprintf(m->description, sizeof(m->description),
             "3D 7-point stencil (the Laplacian's pattern) on a %d^3 grid", n);
    m->merged = -1;
    if (!fitsHost(m->name, held, rows, rows, (double)nnz, 0.0) ||
        !allocMatrix(m, m->name, rows, rows, nnz))
        return false;
    int e = 0;
    for (int row = 0; row < rows; ++row) {
        const int x = row % n, y = row / n % n, z = row / n / n;
        const int candidates[7] = {
            z > 0 ? row - n * n : -1, y > 0 ? row - n : -1,     x > 0 ? row - 1 : -1,        row,
            x < n - 1 ? row + 1 : -1, y < n - 1 ? row + n : -1, z < n - 1 ? row + n * n : -1};
        m->rowOffsets[row] = e;
        for (int k = 0; k < 7; ++k) {
            if (candidates[k] < 0)
                continue;
            m->colIndices[e] = candidates[k];
            m->values[e++] = hashedValue(kSeedValues, (uint64_t)row, (uint64_t)candidates[k]);
        }
    }
    m->rowOffsets[rows] = e;
    return e == nnz;
}

// Graph500's edge list: each edge placed by descending `scale` levels of the 2x2 initiator
// (quadrants A, B, C, D = 1 - A - B - C), then the vertex labels shuffled by the same stream
// (Fisher-Yates), as Graph500 does so that high degree is not also low index.
static void drawKronEdges(int scale, long long edges, int* from, int* to, int* label) {
    const int n = 1 << scale;
    uint64_t state = kSeedKron;
    const double ab = kKronA + kKronB, abc = ab + kKronC;
    for (long long e = 0; e < edges; ++e) {
        from[e] = to[e] = 0;
        for (int bit = scale - 1; bit >= 0; --bit) {
            const double r = uniform01(&state);
            from[e] |= (r >= ab) << bit;                            // C or D: the lower half
            to[e] |= (r >= kKronA && (r < ab || r >= abc)) << bit;  // B or D: the right half
        }
    }
    for (int i = 0; i < n; ++i)
        label[i] = i;
    for (int i = n - 1; i > 0; --i) {
        const int j = (int)(uniform01(&state) * (i + 1));
        const int swapped = label[i];
        label[i] = label[j];
        label[j] = swapped;
    }
    for (long long e = 0; e < edges; ++e) {
        from[e] = label[from[e]];
        to[e] = label[to[e]];
    }
}

// A Graph500 Kronecker graph of 16 * 2^scale drawn edges. Self loops are dropped, each edge stored
// both ways and a repeated one once (the same edge twice is one edge). Values come from the
// position hash: A is symmetric in pattern, not in value. False as makeStencil.
static bool makeKron(int scale, double* held, HostMatrix* m) {
    const int n = 1 << scale;
    const long long edges = (long long)kKronEdgeFactor << scale;
    // The drawn edges (sources, then targets), the vertex labels and the row counts, in one block.
    const size_t drawnBytes = (2 * (size_t)edges + 2 * (size_t)n + 1) * sizeof(int);
    snprintf(m->name, sizeof(m->name), "kron-%d", scale);
    snprintf(
        m->description, sizeof(m->description),
        "Graph500 Kronecker graph, scale %d, edge factor %d, symmetric, duplicates stored once",
        scale, kKronEdgeFactor);
    m->merged = -1;
    // At most two stored entries an edge.
    int* from = fitsHost(m->name, held, n, n, 2.0 * edges, (double)drawnBytes)
                    ? (int*)hostAlloc(m->name, drawnBytes, "the edge list")
                    : NULL;
    if (!from)
        return false;
    int *to = from + edges, *label = to + edges, *offsets = label + n;
    drawKronEdges(scale, edges, from, to, label);
    // A counting sort by row, both directions of every edge, straight into the matrix (rowOffsets
    // are the cursors); then each row sorted and its duplicates squeezed out, the first kept.
    for (long long e = 0; e < edges; ++e) {
        if (from[e] != to[e]) {
            ++offsets[from[e] + 1];
            ++offsets[to[e] + 1];
        }
    }
    for (int r = 0; r < n; ++r)
        offsets[r + 1] += offsets[r];
    const bool ok = allocMatrix(m, m->name, n, n, offsets[n]);
    for (int r = 0; ok && r < n; ++r)
        m->rowOffsets[r] = offsets[r];
    for (long long e = 0; ok && e < edges; ++e) {
        if (from[e] != to[e]) {
            m->colIndices[m->rowOffsets[from[e]]++] = to[e];
            m->colIndices[m->rowOffsets[to[e]]++] = from[e];
        }
    }
    int kept = 0;
    for (int r = 0; ok && r < n; ++r) {
        m->rowOffsets[r] = kept;
        qsort(m->colIndices + offsets[r], (size_t)(offsets[r + 1] - offsets[r]), sizeof(int),
              compareInts);
        for (int e = offsets[r]; e < offsets[r + 1]; ++e) {
            const int col = m->colIndices[e];
            if (e > offsets[r] && col == m->colIndices[e - 1])
                continue;
            m->colIndices[kept] = col;
            m->values[kept++] = hashedValue(kSeedValues, (uint64_t)r, (uint64_t)col);
        }
    }
    if (ok) {
        m->rowOffsets[n] = kept;
        m->nnz = kept;
    }
    free(from);
    return ok;
}

// The lesson's CSR from the reader's entries, sorted by (row, column) with duplicates summed: a
// count per row and a prefix sum. A pattern file, or one whose values are all equal, could not show
// a kernel that pairs a value with the wrong entry, so its values come from the position hash (of
// the lower-triangle position: a symmetric file stays symmetric). SpMV needs no square matrix.
static bool loadMatrixMarket(const char* path, double* held, HostMatrix* m) {
    static const char* const kFields[] = {"real", "integer", "pattern"};
    static const char* const kSymmetry[] = {"general", "symmetric, both triangles stored",
                                            "skew-symmetric, both triangles stored"};
    // The default run opens its own data by a relative path: from another folder, say where to go.
    if (path == kWordsPath && access(path, F_OK) != 0 && errno == ENOENT) {
        fprintf(stderr,
                "%s: cannot open: No such file or directory (run the lesson from its own folder: "
                "cd day37-csr-spmv)\n",
                path);
        return false;
    }
    MmMatrix mm;
    if (mmRead(path, &mm) != 0)
        return false;
    bool allEqual = true, ok = mm.entries > 0;
    if (!ok)
        fprintf(stderr, "%s: needs at least one entry, got %d x %d with none\n", path, mm.rows,
                mm.cols);
    for (int e = 1; e < mm.entries && allEqual; ++e)
        allEqual = mm.entry[e].val == mm.entry[0].val;
    const bool hashed = mm.field == MM_PATTERN || allEqual;
    const char* base = strrchr(path, '/');
    snprintf(m->name, sizeof(m->name), "%s", mmQuote(base ? base + 1 : path));
    char* dot = strrchr(m->name, '.');
    if (dot && dot != m->name && dot[-1] != '.')  // the extension dropped, unless the name was cut
        *dot = '\0';
    snprintf(m->description, sizeof(m->description), "Matrix Market file %s (%s %s%s)",
             mmQuote(path), kFields[mm.field], kSymmetry[mm.symmetry],
             hashed && mm.field != MM_PATTERN ? ", all values equal, so hashed instead" : "");
    m->merged = mm.merged;
    // The reader's entries are still held while the matrix is built from them.
    ok = ok &&
         fitsHost(path, held, mm.rows, mm.cols, mm.entries, (double)mm.entries * sizeof(MmEntry)) &&
         allocMatrix(m, path, mm.rows, mm.cols, mm.entries);
    for (int e = 0; ok && e < mm.entries; ++e) {
        const MmEntry entry = mm.entry[e];
        const bool upper = mm.symmetry != MM_GENERAL && entry.col > entry.row;
        const int hashRow = upper ? entry.col : entry.row;  // the lower-triangle position
        const int hashCol = upper ? entry.row : entry.col;
        ++m->rowOffsets[entry.row + 1];
        m->colIndices[e] = entry.col;
        m->values[e] = hashed ? hashedValue(kSeedValues, (uint64_t)hashRow, (uint64_t)hashCol)
                              : (float)entry.val;
    }
    for (int r = 0; ok && r < mm.rows; ++r)
        m->rowOffsets[r + 1] += m->rowOffsets[r];
    mmFree(&mm);
    return ok;
}

// ---------------------------------------------------------------- flags and main
// Step 1: the inputs the command line names, in order, or the default three. Returns their count,
// or -1 after the one line that says what is wrong.
static int parseFlags(int argc, char** argv, Input* inputs, bool* small, bool* full) {
    int count = 0;
    for (int a = 1; a < argc; ++a) {
        const char* arg = argv[a];
        const bool stencil = strcmp(arg, "--stencil") == 0, kron = strcmp(arg, "--kron") == 0;
        long long value = 0;
        int overflow = 0;
        if (strcmp(arg, "--small") == 0 || strcmp(arg, "--full") == 0) {
            *(arg[2] == 's' ? small : full) = true;
            continue;
        }
        if (stencil || kron) {
            const int lo = stencil ? kMinStencil : kMinKronScale,
                      hi = stencil ? kMaxStencil : kMaxKronScale;
            if (++a == argc) {
                fprintf(stderr, "flag %s: needs a value\n", arg);
                return -1;
            }
            if (!mmInteger(argv[a], &value, &overflow) || overflow || value < lo || value > hi) {
                fprintf(stderr, "flag %s: '%s' is not an integer from %d to %d\n", arg,
                        mmQuote(argv[a]), lo, hi);
                return -1;
            }
        } else if (arg[0] == '-' && arg[1] != '\0') {
            fprintf(stderr, "flag %s: unknown (--help lists every flag)\n", mmQuote(arg));
            return -1;
        }
        if (count == kMaxInputs) {
            fprintf(stderr, "flag %s: more than %d inputs\n", arg, kMaxInputs);
            return -1;
        }
        Input* in = &inputs[count++];
        in->kind = stencil ? kInputStencil : kron ? kInputKron : kInputFile;
        in->path = arg;
        in->size = (int)value;
    }
    if (*small && count > 0) {
        fprintf(stderr,
                "flag --small: chooses its own inputs, so it takes no --stencil, --kron or path\n");
        return -1;
    }
    if (count > 0)
        return count;
    inputs[0].kind = kInputFile;
    inputs[0].path = kWordsPath;
    inputs[1].kind = kInputStencil;
    inputs[1].size = *small ? kSmallStencil : kDefaultStencil;
    inputs[2].kind = kInputKron;
    inputs[2].size = *small ? kSmallKronScale : kDefaultKronScale;
    return 3;
}

// Steps 2 and 3: load, validate and generate every input, then the host part (tile schedule, lanes,
// CPU reference, tables), all before the first CUDA call. False after the line that says why.
static bool prepareInputs(Input* inputs, int count) {
    double held = 0.0;  // host bytes the inputs built so far will keep
    for (int i = 0; i < count; ++i) {
        Input* in = &inputs[i];
        in->label = in->kind == kInputFile ? in->path : in->m.name;
        const bool built = in->kind == kInputFile      ? loadMatrixMarket(in->path, &held, &in->m)
                           : in->kind == kInputStencil ? makeStencil(in->size, &held, &in->m)
                                                       : makeKron(in->size, &held, &in->m);
        if (!built)
            return false;
    }
    printf("Day 37: CSR SpMV, y = A * x in fp32; %d input%s\n", count, count == 1 ? "" : "s");
    for (int i = 0; i < count; ++i) {
        Input* in = &inputs[i];
        in->subWarpLanes = chooseSubWarpLanes(&in->m);
        in->ruleKernel = chooseKernel(&in->m);
        if (!buildTileSchedule(in) || !computeReference(in) || !printAnalysis(in, i, count))
            return false;
    }
    return true;
}

int main(int argc, char** argv) {
    for (int a = 1; a < argc; ++a)
        if (strcmp(argv[a], "--help") == 0 || strcmp(argv[a], "-h") == 0)
            return fputs(kUsage, stdout) >= 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    // Step 1: the inputs the command line names.
    bool small = false, full = false;
    Input inputs[kMaxInputs] = {};
    const int count = parseFlags(argc, argv, inputs, &small, &full);
    if (count < 0)
        return EXIT_FAILURE;
    // Steps 2 and 3: every input built, checked and analysed on the host.
    if (!prepareInputs(inputs, count)) {
        freeInputs(inputs, count);
        return EXIT_FAILURE;
    }
    // Step 4: the first CUDA call. A machine with no NVIDIA driver at all reports an old driver.
    int deviceCount = 0;
    const cudaError_t probe = cudaGetDeviceCount(&deviceCount);
    if (probe != cudaSuccess || deviceCount == 0) {
        const bool none = probe == cudaSuccess || probe == cudaErrorNoDevice;
        if (none || probe == cudaErrorInsufficientDriver)
            printf("no GPU found%s: ", none ? ""
                                            : ", or its driver is older than this program's CUDA "
                                              "runtime (nvidia-smi shows both)");
        else
            printf("the GPU cannot be used (CUDA: %s): ", cudaGetErrorString(probe));
        puts("the host part above ran, the GPU part did not");
        freeInputs(inputs, count);
        return 2;
    }
    // Step 5: the GPU part, when the GPU has the memory for it.
    const size_t copyBytes = small ? kCopyBytesSmall : kCopyBytes;
    const int failures = fitsDevice(inputs, count, copyBytes)
                             ? runGpuPart(inputs, count, copyBytes, full)
                             : -1;  // after the line that says what does not fit
    freeInputs(inputs, count);
    if (failures < 0)
        return EXIT_FAILURE;
    if (failures > 0)
        fprintf(stderr, "%d check(s) failed\n", failures);
    puts(failures > 0 ? "FAIL" : "PASS");
    return failures > 0 ? EXIT_FAILURE : EXIT_SUCCESS;
}
