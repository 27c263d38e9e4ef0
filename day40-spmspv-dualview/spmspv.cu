// Day 40: sparse matrix times sparse vector (SpMSpV) on one blocked matrix
// that can be walked by rows (pull) and by columns (push).
//
// y = A x where x is sparse and its sparsity changes from call to call, the
// way a BFS frontier or a pruned activation does. Two directions exist:
//   push  walk only the columns j where x_j != 0 and scatter into y (atomics)
//   pull  walk every output row and gather the x_j it needs (no conflicts)
// Push wins when x is very sparse, pull when it is not. The lesson measures
// where the crossover sits, and why it is set by how x's nonzeros fall into
// 16-element blocks rather than by how many there are.
//
// The matrix is stored once, in 16x16 blocks (the "DB" format of the paper in
// the README's credits). Two small index views share the one block payload:
// a block-CSR view for pull and a block-CSC view for push, the second pointing
// back into the first through csc2csr. Each block picks one of five layouts
// (COO, Dense, ForceCSR, ForceCSC, patched CSR) by its nonzero count and row
// or column skew. The GPU builds a 16-bit mask per x block and counts the
// nonzero blocks and the push tasks they open; the task count chooses push or
// pull on the device (the paper's rule on the block count is printed beside
// it), and programmatic dependent launch hides the gaps between the kernels.
// Blocks with few nonzeros are walked one per lane, the others one per warp.
//
// Inputs: the CUDA word matrix beside this file (a real, skewed graph), and
// three generated matrices of about 25 million nonzeros each, big enough that
// one cuSPARSE SpMV is far longer than a launch: a 3D finite-element-like
// mesh with 3 unknowns per node (locally dense blocks), a banded matrix with
// a half-filled band, and a Graph500-style Kronecker graph (scattered blocks).
// Every path is checked against a CPU reference in double before and after
// it is timed, and the format builder is checked by rebuilding A from both
// views on the host.
//
// Part 2 puts the format to work. DB-BFS: a graph converted once, frontier
// and visited sets as 16-bit masks per 16-vertex block, Boolean push and
// pull kernels that only test reachability, the path chosen per level on the
// device inside one cooperative launch, against a day-38-style warp-per-vertex
// BFS, on a Graph500 Kronecker graph of scale 21 (GTEPS by the Graph500
// rule), the mesh, the banded matrix and the word graph, every level judged
// exactly against a CPU BFS. And a sparse decoding layer: random weights of a
// small language model's projection shapes, half pruned, x 10% kept, DB auto
// against cuBLAS SGEMV and cuSPARSE.
//
// Build: nvcc -O3 -arch=sm_90 -o spmspv spmspv.cu -lcusparse -lcublas
// Run:   ./spmspv                         the verified run, from this folder
//        ./spmspv --small                 tiny inputs, every path, for compute-sanitizer
//        ./spmspv --density 0.05,0.002    other x densities
//        ./spmspv --roots 32              more Kronecker BFS roots (16..64)
//        ./spmspv FILE.mtx [FILE.mtx ...] any Matrix Market files instead (BFS on A + A^T)
// Transcript: the newest evidence/run-*.txt beside this file.

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cooperative_groups.h>
#include <cublas_v2.h>
#include <cusparse.h>

namespace cg = cooperative_groups;

// ---------------------------------------------------------------------------
// Constants
// ---------------------------------------------------------------------------

// 16x16 blocks: one block row is 16 rows, which is half a warp, so a warp can
// hold every row sum of a block in two lanes each; one x block is 16 floats,
// whose nonzero pattern fits a 16-bit mask.
static const int kBlockDim = 16;
static const int kBlockArea = 256;          // kBlockDim * kBlockDim
static const int kWarpSize = 32;            // every GPU this course targets
static const unsigned kFullMask = 0xffffffffu;

// The paper's block-type thresholds (taken from its predecessor CB-SpMV):
// fewer than kTh0 nonzeros is COO, more than kTh1 is Dense; in between, a
// column skew more than kTh2 times the row skew (or the reverse) forces a
// one-direction layout. kSkewEpsilon only keeps the division defined.
static const int kTh0 = 32;
static const int kTh1 = 128;
static const double kTh2 = 2.0;
static const double kSkewEpsilon = 1e-6;

// The paper's direction rule: push when fewer than 1% of the x blocks hold a
// nonzero (its th3). Printed beside the rule DB auto uses, for comparison.
static const double kTh3 = 0.01;

// The rule DB auto uses: push when the push tasks (matrix blocks in the
// nonzero x blocks' columns, which the metadata step counts anyway) are fewer
// than a share of all nonzero blocks, the share set by what a task costs.
// Calibrated on the H200 transcripts (push-only against pull-only, random
// x). Light matrices (most nonzeros in one-lane blocks): before the view
// carried column masks, a Kronecker push task cost about three pull block
// visits and the share was 0.3. With them, a task x misses costs a 2-byte
// read, and push wins at a share of 0.811 (d = 0.1) by about a seventh;
// scaled linearly in tasks it meets pull near 0.9. (The small word graph is
// one launch long either way and does not set the rule; the large inputs
// do.) Heavy matrices: push wins by a quarter to two fifths at the highest
// share measured (0.817 on fe-mesh, 0.815 on banded), and scaled linearly
// to a share of 1 it still wins, so pull is left only for an x that touches
// every column block. The literals live in choosePushByWork (device code
// cannot read a double constant).
static const double kPushTaskShareLight = 0.9;
static const double kPushTaskShareHeavy = 1.0;
// A matrix is light when more than half its nonzeros sit in one-lane blocks.
static const double kLightNnzShare = 0.5;

// A block with at most this many nonzeros (the blocks the auto rule makes COO,
// below th0) is walked by ONE lane: a warp then has 32 such blocks in flight
// instead of one, which is what a graph's 1-nonzero blocks need. Larger
// blocks keep a whole warp and the microkernels below.
static const int kLaneBlockMaxNnz = 31;

// In push, a larger patched-CSR block is still walked by one lane when the
// products x asks of it are few: popcount(x mask) x its mean column length
// at most kLaneProductsMax. At the densities the lesson runs, a nonzero x
// block has one or two nonzeros, so this turns a warp walking the 3 products
// of a 51-entry mesh block into 32 lanes walking 32 blocks. (A Dense or
// ForceCSC block walked by one lane made banded push about a tenth slower
// in the H200 run that tried it, and in pull every lane of a warp adds into
// the same 16 shared row sums, so pull keeps the static choice.)
static const int kLaneProductsMax = 8;

// Inside one block, an x block with at most this many nonzeros is walked
// column by column (only the active columns are touched); above it, the
// row-wise microkernels win because every row has work.
static const int kSparseXBlockMax = 4;

// Pull load balance, in lane slots: a block one lane walks costs 1, a block a
// whole warp walks costs 16 (CSR-like) or 32 (Dense: 1 KiB of values). A row
// block's blocks are cut into segments of weight 256, one thread block per
// segment: its 4 warps take two passes of 32 lane blocks each, or about four
// warp blocks each, and the segment writeback is paid once per 256 slots.
static const int kWeightDense = 32;
static const int kWeightCsrLike = 16;
static const int kWeightLane = 1;
static const int kSegmentWeight = 256;
// --small cuts finer: its matrices have at most 250 column blocks, so at 256
// no row block would be split and the multi-segment writeback of dbPull
// would never run under the sanitizer; 96 splits most row blocks and still
// hands some warps several heavy blocks in a row.
static const int kSegmentWeightSmall = 96;
// --small runs dbPull and dbPush on 4 thread blocks: a full-GPU grid would
// give each push warp one task and each pull block one segment, and the
// multi-pass code would go unexercised under the sanitizer.
static const int kSmallGridCtas = 4;

static const int kPullWarps = 4;            // four warps per segment
static const int kPullThreads = 128;        // kPullWarps * kWarpSize
// Persistent grids: as many thread blocks as fit on the GPU at once, so none
// waits for a second round. __launch_bounds__ holds each kernel to 40
// registers a thread (48 warps an SM; 32 registers would spill), and the grid
// is sized from the occupancy the runtime reports for the compiled kernel.
// Push uses the same 128-thread shape as pull (it has no block-wide step, so
// the shape costs it nothing) so that DB auto can be ONE kernel holding both.
static const int kPullCtasPerSm = 12;       // 12 x 128 threads = 48 warps
static const int kPushWarps = 4;
static const int kPushThreads = 128;        // kPushWarps * kWarpSize
static const int kPushCtasPerSm = 12;       // 12 x 128 threads = 48 warps
static const int kMetaThreads = 256;
static const int kMetaWarps = 8;
// One metadata thread block owns 128 x blocks (2048 entries): its 8 warps
// read 32 entries a step, and 128 is four warps' worth for the scan.
static const int kMetaColBlocksPerCta = 128;
static const int kMetaSteps = 8;            // 128 / (8 warps x 2 x blocks a step): steps per warp
static const int kMetaScanWarps = 4;        // 128 / 32
static const int kMetaRowsPerCta = 2048;    // y rows zeroed by one thread block
static const int kPlainThreads = 256;

// Block types. The numbering is stored in the descriptor, so it is fixed.
static const int kTypeCoo = 0;
static const int kTypeDense = 1;
static const int kTypeForceCsr = 2;
static const int kTypeForceCsc = 3;
static const int kTypeCsr = 4;
static const int kTypeCount = 5;
static const char* const kTypeNames[] = {"COO", "Dense", "ForceCSR", "ForceCSC",
                                         "CSR"};

// Low-level layout policies: the paper's rules, and the two fixed layouts of
// its format ablation (Fig. 10).
static const int kPolicyAuto = 0;
static const int kPolicyAllCoo = 1;
static const int kPolicyAllCsr = 2;
static const int kPolicyCount = 3;
static const char* const kPolicyNames[] = {"auto", "all-COO", "all-CSR"};

static const int kWarmupRuns = 3;
static const int kTimedRuns = 20;
// --small feeds compute-sanitizer, which slows kernels a hundredfold and
// racecheck more: one warm-up (lazy loading still needs it) and one timed
// call cover every path; the figures of such a run mean nothing anyway.
static const int kSmallWarmupRuns = 1;
static const int kSmallTimedRuns = 2;  // even: a replayed graph of calls must end on the counter it began with
static const int kCanaryFloats = 16;        // guard zone after y
static const unsigned char kCanaryByte = 0xA5;
static const long long kLargeNnz = 1000000; // below this a SpMV is one launch
static const double kBsrMaxBytes = 4.0e9;   // BSR stores 1 KiB per block
static const double kCopyBytes = 1073741824.0; // 1 GiB for the copy ceiling

static const uint64_t kSeedX = 42;          // the paper's vector seed
static const uint64_t kSeedFe = 0x5eed0001;
static const uint64_t kSeedBand = 0x5eed0002;
static const uint64_t kSeedKron = 0x5eed0003;
static const uint64_t kSeedPattern = 0x5eed0004;

static const int kMaxDensities = 8;
static const int kMaxInputs = 8;
static const int kLineCap = 1024;
static const int kMaxDim = 1 << 30;         // rows + 15 stays inside int

// Default sizes: 16 to 26 million nonzeros each, so that one cuSPARSE SpMV
// takes tens of microseconds, and the host part stays under a minute.
static const int kFeSide = 48;              // 48^3 nodes, 3 unknowns, 27 points
static const int kFeSideSmall = 6;
static const int kFeUnknowns = 3;
static const int kBandRows = 800000;
static const int kBandRowsSmall = 4000;
static const int kBandHalfWidth = 32;       // half of the band is filled
static const int kKronScale = 19;          // 2^19 vertices, ~16M nonzeros
static const int kKronScaleSmall = 11;
static const int kKronEdgeFactor = 16;      // Graph500's edge factor
static const double kKronA = 0.57, kKronB = 0.19, kKronC = 0.19;

// DB-BFS (part 2). The Graph500 graph of the issue is scale 21 (2 million
// vertices, about 64 million adjacency entries), built beside part 1's
// scale-19 matrix; --small takes scale 10 so the sanitizer finishes.
static const int kBfsKronScale = 21;
static const int kBfsKronScaleSmall = 10;
static const int kBfsRootsDefault = 16;     // Graph500: at least 16 roots
static const int kBfsRootsMin = 16;
static const int kBfsRootsMax = 64;
// The other graphs take 4 roots: the banded graph's BFS has about 25000
// levels (800000 rows over a band of 32), so each search is ~0.1 s of level
// barriers and 16 roots would take most of the run's time budget.
static const int kBfsRootsOther = 4;
static const int kBfsRootsSmall = 2;        // --small: two roots show the reset works
static const uint64_t kSeedRoots = 0x5eed0006;
static const int kBfsTimedRuns = 3;         // per root and variant; 16 roots steady the mean
static const int kBfsThreads = 256;         // 8 warps: the close-level scan is one shuffle scan + 8 totals
static const int kBfsWarps = 8;             // kBfsThreads / 32
static const int kBfsTableLevels = 24;
// A search of more levels than this (the band: about 20000) spends ~0.1 s
// in level barriers alone; one timed search per root is already long enough
// to time, and three would cost the run's time budget.
static const int kBfsManyLevels = 1000;      // per-level table rows; Kronecker needs ~8, the mesh ~50
// The DB-BFS level rule, set from the H200 transcripts' instrumented
// per-level tables (push-only and pull-only time of every level of one
// root). Pull walks the blocks of every row block that is still open (holds
// a vertex with edges and no level) and stops early in the others, so its
// work is the open blocks; push's is its tasks. Two facts set it:
// - A push task costs about ten pull block visits: at Kronecker's level 1
//   (root 383823, 2340693 tasks against 62152612 open blocks) push spends
//   about 80 ps a task (most dropped by the column mask) and pull about
//   8 ps a block. So push while tasks < kBfsPushShare = 0.1 x open blocks.
// - While the tasks fit in one pass of the GPU's lanes, push is one round of
//   dependent loads and pull is no cheaper: on the mesh, the band and the
//   word graph no level has more than 60000 tasks; push-only beats
//   pull-only clearly on the band (by a quarter) and is within a few per
//   cent of it on the word graph and the mesh, where the two trade places
//   level by level, even at word-graph levels where tasks are 1.5 times the
//   open blocks. So push too while tasks < kBfsPushWave, 2^18, about one
//   pass of an H200's resident threads (132 SMs x 2048 = 270336); --small
//   uses its own 4-block grid's 1024.
// Vertices without edges count as visited from the start: no search
// reaches them, and while they counted as unvisited almost no 16-vertex
// block of Kronecker (many of its vertices have no edge) could ever close,
// so pull never stopped early and lost every level to push. Literals in
// chooseBfsPush.
static const double kBfsPushShare = 0.1;
static const long long kBfsPushWave = 262144;
// Boolean pull walks row blocks in segments of at most this many blocks, one
// warp a segment: a Kronecker hub's row block holds hundreds of times the
// mean (the graph's line prints the largest), and with one warp per row
// block that one warp set the pass's time (in the H200 run that tried
// both, a pull pass that found nothing took almost four times as long as
// it does in segments). 128 blocks are four 32-lane steps; the
// segments of one row block share what they found through next.
static const int kBfsPullSegmentBlocks = 128;
// Beamer's direction-optimizing rule, printed for comparison: go bottom-up
// (pull) when the frontier's edges exceed the unexplored edges / alpha, back
// to top-down (push) when the frontier holds fewer than n / beta vertices.
// alpha = 14 and beta = 24 are the paper's (SC 2012) tuned values.
static const double kBeamerAlpha = 14.0;
static const double kBeamerBeta = 24.0;
static const int kBfsModeAuto = 0;
static const int kBfsModePush = 1;
static const int kBfsModePull = 2;
static const int kBfsVarWarp = 0;           // the day-38-style BFS
static const int kBfsVarPush = 1;
static const int kBfsVarPull = 2;
static const int kBfsVarAuto = 3;
static const int kBfsVarCount = 4;
static const char* const kBfsVarNames[] = {"day-38 warp BFS", "DB-BFS push-only", "DB-BFS pull-only",
                                           "DB-BFS auto"};
static const int kMaxBfsGraphs = 9;         // the 8 inputs and the Kronecker graph

// Sparse decoding layer (part 2): the projection shapes of a small language
// model (hidden size 2048: a square Q/O projection and an 8192 x 2048 FFN
// up-projection), weights drawn from a fixed seed, no model file. Half the
// weights pruned by magnitude, x kept where |x| is in its top 10%, as the
// paper's decoding study does with real weights. --small divides both sides
// by 32.
static const int kDecodeShapes = 2;
static const int kDecodeRows[] = {2048, 8192};
static const int kDecodeCols[] = {2048, 2048};
static const int kDecodeShrinkSmall = 32;
static const double kDecodePrune = 0.5;     // share of weights set to zero
static const double kDecodeKeepX = 0.1;     // share of x entries kept
static const uint64_t kSeedDecode = 0x5eed0007;

static const char* kWordsPath = "cuda-words.mtx";
static const double kDefaultDensities[] = {0.1, 0.01, 0.001, 0.0001};
static const int kDefaultDensityCount = 4;

// x patterns: uniformly random positions (the paper's), and the same count of
// nonzeros packed into whole 16-element blocks, which is the lesson's point.
static const int kPatternRandom = 0;
static const int kPatternClustered = 1;
static const int kPatternCount = 2;
static const char* const kPatternNames[] = {"random", "clustered"};

// ---------------------------------------------------------------------------
// Error macros (verbatim copies of the course's canonical text)
// ---------------------------------------------------------------------------

#define CUDA_CHECK(call)                                                   \
    do {                                                                   \
        cudaError_t status_ = (call);                                      \
        if (status_ != cudaSuccess) {                                      \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,  \
                    #call, cudaGetErrorString(status_));                   \
            exit(EXIT_FAILURE);                                            \
        }                                                                  \
    } while (0)

// cuSPARSE returns its own status type, so it needs its own check.
#define CUSPARSE_CHECK(call)                                               \
    do {                                                                   \
        cusparseStatus_t status_ = (call);                                 \
        if (status_ != CUSPARSE_STATUS_SUCCESS) {                          \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,  \
                    #call, cusparseGetErrorString(status_));               \
            exit(EXIT_FAILURE);                                            \
        }                                                                  \
    } while (0)

// cuBLAS has no error-string function before 12.0; the number is enough to
// look it up in cublas_api.h.
#define CUBLAS_CHECK(call)                                                 \
    do {                                                                   \
        cublasStatus_t status_ = (call);                                   \
        if (status_ != CUBLAS_STATUS_SUCCESS) {                            \
            fprintf(stderr, "%s:%d: %s failed: cuBLAS status %d\n",        \
                    __FILE__, __LINE__, #call, (int)status_);              \
            exit(EXIT_FAILURE);                                            \
        }                                                                  \
    } while (0)

// ---------------------------------------------------------------------------
// Data structures (host)
// ---------------------------------------------------------------------------

// Compressed sparse rows. The CSC of A is kept as the CSR of A's transpose,
// so one struct and one set of functions serve both.
typedef struct {
    int rows;
    int cols;
    int nnz;
    int* rowPtr;   // rows + 1
    int* colIdx;   // nnz, ascending inside a row
    float* val;    // nnz
} Csr;

// The DB format. A block is named by its primary id, its position in
// row-block order; the payload, the descriptors and the block-CSR view are
// all indexed by it. The block-CSC view lists the same blocks by column block
// and maps each position back with csc2csr, so nothing is stored twice.
typedef struct {
    int rowBlocks;
    int colBlocks;
    int blocks;
    int* blockRowPtr;   // rowBlocks + 1: block-CSR view (column ids: desc.col)
    int* blockColPtr;   // colBlocks + 1: block-CSC view
    int* cscRowIdx;     // blocks: row block of each CSC position
    int* csc2csr;       // blocks: primary id of each CSC position
    unsigned short* cscColMask;  // blocks: which of the block's 16 columns hold entries, CSC order
    int* desc;          // blocks * 4: row block, col block, payload word, nnz | type << 16
    unsigned* payload;  // index bytes then float values, per block, 4-byte aligned
    long long payloadWords;
    int* segments;      // segmentCount * 4: row block, first block, end block, 0
    int segmentCount;
    int segmentWeight;  // the weight segments were cut at
    int* rowSegPtr;     // rowBlocks + 1: the segments of each row block
    long long typeBlocks[5];
    long long typeNnz[5];
    int lightMatrix;    // most nonzeros in one-lane blocks: sets DB auto's share
    int longestColumn;  // blocks in the fullest column block
    int columnGroup;    // lanes the column walk gives a column block; 0: it does not run
} DbFormat;

// One x vector and everything the host knows about it.
typedef struct {
    int pattern;
    double density;
    int nonzeros;
    float* x;                // colBlocks * 16 entries, zero padded
    unsigned short* mask;    // colBlocks
    int activeBlocks;
    long long pushTasks;     // blocks in active column blocks
    long long products;      // matrix entries in active columns
    int pushChosen;          // the work rule, which DB auto follows
    int paperPush;           // the paper's th3 rule, printed for comparison
    double* want;            // rows: the reference, in double
    double* tol;             // rows: the allowed error
    double sumWant;
    double sumTol;
    int rowsNonzero;
} XCase;

typedef struct {
    char name[96];
    char about[160];
    Csr a;
    Csr at;                  // A transposed: the CSC of A
    DbFormat db[3];          // by policy
    XCase cases[2 * 8];      // kPatternCount * kMaxDensities
    int caseCount;
    long long dbBytes[3];
    long long csrBytes;
    long long cscBytes;
} Input;

typedef struct {
    int small;
    double densities[8];
    int densityCount;
    const char* paths[8];
    int pathCount;
    int roots;               // Kronecker BFS roots
} Options;

// One BFS graph and everything the CPU knows about its searches.
typedef struct {
    char name[96];
    char about[192];
    Csr adj;                 // symmetric pattern, self loops dropped (values unused)
    DbFormat db;             // the auto layouts, converted once
    int rootCount;
    int roots[64];           // kBfsRootsMax
    int* dist;               // rootCount * n: the CPU's levels, -1 not reached
    int levels[64];          // non-empty frontiers per root
    long long edges[64];     // undirected edges in each root's component
    int* levelVertices[64];  // per root and level: frontier vertices
    int* levelActive[64];    // nonzero 16-vertex blocks of the frontier
    long long* levelTasks[64];  // push tasks: matrix blocks in those columns
    long long* levelOpen[64];   // matrix blocks of the row blocks still open (pull's work)
    int graph500;            // GTEPS by the Graph500 rule is reported for it
    long long pushWave;      // the level rule's one-pass task count (kBfsPushWave or --small's grid)
} BfsGraph;

// ---------------------------------------------------------------------------
// Utilities: random numbers, growth, format arithmetic shared with the GPU
// ---------------------------------------------------------------------------

static uint64_t splitmix64(uint64_t* state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t hashPair(uint64_t seed, uint64_t a, uint64_t b) {
    uint64_t s = seed ^ (a * 0x9e3779b97f4a7c15ull) ^ (b + 0x632be59bd9b4e019ull);
    splitmix64(&s);
    return splitmix64(&s);
}

static double unit01(uint64_t bits) {
    return (double)(bits >> 11) * (1.0 / 9007199254740992.0);
}

// Matrix values in +-[0.25, 2): never zero, never all equal, so a wrong
// column or a wrong value offset changes the answer.
static float matrixValue(uint64_t bits) {
    const float mag = (float)(0.25 + 1.75 * unit01(bits));
    return (bits & 1u) ? -mag : mag;
}

static void* xmalloc(size_t bytes) {
    void* p = malloc(bytes > 0 ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
        exit(EXIT_FAILURE);
    }
    return p;
}

static void* xcalloc(size_t count, size_t size) {
    void* p = calloc(count > 0 ? count : 1, size);
    if (p == NULL) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", count * size);
        exit(EXIT_FAILURE);
    }
    return p;
}

static void* growArray(void* p, long long* capacity, long long need, size_t elem) {
    if (need <= *capacity) {
        return p;
    }
    long long cap = *capacity > 0 ? *capacity : 1024;
    while (cap < need) {
        cap *= 2;
    }
    void* q = realloc(p, (size_t)cap * elem);
    if (q == NULL) {
        fprintf(stderr, "out of host memory (%lld elements)\n", cap);
        exit(EXIT_FAILURE);
    }
    *capacity = cap;
    return q;
}

// Index bytes in front of a block's values, in 4-byte words:
//   COO       one byte per entry, row << 4 | col, row-major order
//   Dense     16 row masks (uint16), then 256 values row-major
//   ForceCSR  16 row starts (uint8), 16 row masks (uint16)
//   ForceCSC  16 column starts (uint8), 16 column masks (uint16); values column-major
//   CSR       as ForceCSR, then 16 column starts (uint8) and one byte per
//             entry in column order: row << 4 | position inside that row
__host__ __device__ inline int indexWords(int type, int nnz) {
    if (type == 0) return (nnz + 3) / 4;         // COO
    if (type == 1) return 8;                     // Dense
    if (type == 2 || type == 3) return 12;       // ForceCSR, ForceCSC
    return (64 + nnz + 3) / 4;                   // patched CSR
}

__host__ __device__ inline int valueCount(int type, int nnz) {
    return type == 1 ? 256 : nnz;
}

// snippet: path-choice
// The paper's global choice: push when fewer than kTh3 = 1% of the x blocks
// hold a nonzero. One expression for host and device, so they cannot drift
// apart (the literal is kTh3: a double constant cannot be read by device code).
__host__ __device__ inline int choosePush(int activeBlocks, int colBlocks) {
    return (double)activeBlocks < 0.01 * (double)colBlocks;
}

// The choice DB auto makes: compare the work itself. Push walks its tasks,
// pull walks every nonzero block; push when the tasks are fewer than
// kPushTaskShareLight = 0.9 of the blocks on a light matrix, and
// kPushTaskShareHeavy = 1.0 otherwise. lightMatrix is fixed when the matrix
// is converted.
__host__ __device__ inline int choosePushByWork(long long pushTasks, int blocks, int lightMatrix) {
    return (double)pushTasks < (lightMatrix ? 0.9 : 1.0) * (double)blocks;
}
// end snippet

// A block one lane walks alone: few nonzeros, in a layout whose entries a
// lane can list without the block's row structure (COO, or patched CSR
// through its column map). desc word 3 packs nnz | type << 16.
__host__ __device__ inline int laneBlock(int packed) {
    const int type = packed >> 16, nnz = packed & 0xffff;
    return nnz <= kLaneBlockMaxNnz && (type == kTypeCoo || type == kTypeCsr);
}

// snippet: lane-task
// The same choice made per push task, once x is known: a patched-CSR block
// that is not light by itself is still ONE lane's task when the products x
// asks of it (active columns x mean column length) are at most
// kLaneProductsMax; its column map lists them directly.
__device__ inline int laneTask(int packed, unsigned xm) {
    if (laneBlock(packed)) return 1;
    const int type = packed >> 16, nnz = packed & 0xffff;
    return type == kTypeCsr && __popc(xm) * nnz <= kLaneProductsMax * kBlockDim;
}
// end snippet

static int blockWeight(int packed) {
    if (laneBlock(packed)) return kWeightLane;
    return (packed >> 16) == kTypeDense ? kWeightDense : kWeightCsrLike;
}

static int popcount16(unsigned v) {
    int n = 0;
    while (v) {
        v &= v - 1;
        ++n;
    }
    return n;
}

static void freeCsr(Csr* m) {
    free(m->rowPtr);
    free(m->colIdx);
    free(m->val);
    m->rowPtr = NULL;
    m->colIdx = NULL;
    m->val = NULL;
}

static void freeDb(DbFormat* f) {
    free(f->blockRowPtr);
    free(f->blockColPtr);
    free(f->cscRowIdx);
    free(f->csc2csr);
    free(f->cscColMask);
    free(f->desc);
    free(f->payload);
    free(f->segments);
    free(f->rowSegPtr);
    memset(f, 0, sizeof(*f));
}

static void freeInput(Input* in) {
    freeCsr(&in->a);
    freeCsr(&in->at);
    for (int p = 0; p < kPolicyCount; ++p) {
        freeDb(&in->db[p]);
    }
    for (int c = 0; c < in->caseCount; ++c) {
        free(in->cases[c].x);
        free(in->cases[c].mask);
        free(in->cases[c].want);
        free(in->cases[c].tol);
    }
    in->caseCount = 0;
}

// ---------------------------------------------------------------------------
// COO triples to CSR: two stable counting sorts (by column, then by row), so
// the work is linear in the entries and every row comes out sorted.
// ---------------------------------------------------------------------------

// Duplicates: when line is NULL they are merged (the first is kept, which is
// how the generators want it); otherwise the first duplicate in file order is
// reported through *dupLater / *dupFirst / *dupRow / *dupCol and 1 returned.
// A line below zero marks a mirrored entry of a symmetric file, which is a
// duplicate only if its source is, so it is not reported on its own.
static int triplesToCsr(int rows, int cols, long long count, const int* r,
                        const int* c, const float* v, const int* line, Csr* out,
                        int* dupLater, int* dupFirst, int* dupRow, int* dupCol) {
    int* byCol = (int*)xmalloc((size_t)count * sizeof(int));
    int* order = (int*)xmalloc((size_t)count * sizeof(int));
    int* counts = (int*)xcalloc((size_t)(cols > rows ? cols : rows) + 1, sizeof(int));
    for (long long i = 0; i < count; ++i) ++counts[c[i] + 1];
    for (int j = 0; j < cols; ++j) counts[j + 1] += counts[j];
    for (long long i = 0; i < count; ++i) byCol[counts[c[i]]++] = (int)i;
    memset(counts, 0, ((size_t)(cols > rows ? cols : rows) + 1) * sizeof(int));
    for (long long i = 0; i < count; ++i) ++counts[r[i] + 1];
    for (int i = 0; i < rows; ++i) counts[i + 1] += counts[i];
    for (long long k = 0; k < count; ++k) {
        const int i = byCol[k];
        order[counts[r[i]]++] = i;
    }
    free(counts);
    free(byCol);

    out->rows = rows;
    out->cols = cols;
    out->rowPtr = (int*)xcalloc((size_t)rows + 1, sizeof(int));
    out->colIdx = (int*)xmalloc((size_t)count * sizeof(int));
    out->val = (float*)xmalloc((size_t)count * sizeof(float));
    long long kept = 0;
    int found = 0;
    for (long long k = 0; k < count; ++k) {
        const int i = order[k];
        if (kept > 0 && k > 0) {
            const int prev = order[k - 1];
            if (r[prev] == r[i] && c[prev] == c[i]) {
                if (line != NULL && line[i] >= 0 && line[prev] >= 0) {
                    const int later = line[i] > line[prev] ? line[i] : line[prev];
                    const int first = line[i] > line[prev] ? line[prev] : line[i];
                    if (!found || later < *dupLater) {
                        *dupLater = later;
                        *dupFirst = first;
                        *dupRow = r[i];
                        *dupCol = c[i];
                        found = 1;
                    }
                }
                continue;
            }
        }
        out->colIdx[kept] = c[i];
        out->val[kept] = v != NULL ? v[i] : 0.0f;
        ++out->rowPtr[r[i] + 1];
        ++kept;
    }
    free(order);
    for (int i = 0; i < rows; ++i) out->rowPtr[i + 1] += out->rowPtr[i];
    out->nnz = (int)kept;
    if (found) {
        freeCsr(out);
        return 1;
    }
    return 0;
}

// The CSC of A, as the CSR of A^T. Rows stay ascending inside each column
// because the rows of A are visited in order.
static void transposeCsr(const Csr* a, Csr* t) {
    t->rows = a->cols;
    t->cols = a->rows;
    t->nnz = a->nnz;
    t->rowPtr = (int*)xcalloc((size_t)a->cols + 1, sizeof(int));
    t->colIdx = (int*)xmalloc((size_t)a->nnz * sizeof(int));
    t->val = (float*)xmalloc((size_t)a->nnz * sizeof(float));
    for (int k = 0; k < a->nnz; ++k) ++t->rowPtr[a->colIdx[k] + 1];
    for (int j = 0; j < a->cols; ++j) t->rowPtr[j + 1] += t->rowPtr[j];
    int* cursor = (int*)xmalloc((size_t)a->cols * sizeof(int));
    memcpy(cursor, t->rowPtr, (size_t)a->cols * sizeof(int));
    for (int i = 0; i < a->rows; ++i) {
        for (int k = a->rowPtr[i]; k < a->rowPtr[i + 1]; ++k) {
            const int p = cursor[a->colIdx[k]]++;
            t->colIdx[p] = i;
            t->val[p] = a->val[k];
        }
    }
    free(cursor);
}

// ---------------------------------------------------------------------------
// Matrix Market reader. Every refusal is one line: FILE: line N: what.
// ---------------------------------------------------------------------------

// Reads one line; returns 1, 0 at end of file, -1 when the line is too long.
static int readLine(FILE* f, char* buf, int cap, int* lineNo) {
    if (fgets(buf, cap, f) == NULL) {
        return 0;
    }
    ++*lineNo;
    const size_t len = strlen(buf);
    if (len == (size_t)cap - 1 && buf[len - 1] != '\n' && !feof(f)) {
        return -1;
    }
    return 1;
}

static int isBlank(const char* s) {
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n') ++s;
    return *s == '\0';
}

static void lowerCase(char* s) {
    for (; *s; ++s) {
        if (*s >= 'A' && *s <= 'Z') *s = (char)(*s - 'A' + 'a');
    }
}

// Parses a decimal integer token; *end points past it.
static int parseIndex(const char* s, long long* out, const char** end) {
    char* e = NULL;
    errno = 0;
    const long long v = strtoll(s, &e, 10);
    if (e == s || errno != 0) return 0;
    if (*e != '\0' && *e != ' ' && *e != '\t' && *e != '\r' && *e != '\n') return 0;
    *out = v;
    *end = e;
    return 1;
}

static const char* skipSpace(const char* s) {
    while (*s == ' ' || *s == '\t') ++s;
    return s;
}

// Next token copied into tok (for messages), returns pointer past it.
static const char* copyToken(const char* s, char* tok, int cap) {
    int n = 0;
    while (*s && *s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') {
        if (n < cap - 1) tok[n++] = *s;
        ++s;
    }
    tok[n] = '\0';
    return s;
}

typedef struct {
    int* r;
    int* c;
    float* v;
    int* line;
    long long count;
    long long cap;
} Triples;

static void pushTriple(Triples* t, int r, int c, float v, int line) {
    long long cr = t->cap, cc = t->cap, cv = t->cap, cl = t->cap;
    t->r = (int*)growArray(t->r, &cr, t->count + 1, sizeof(int));
    t->c = (int*)growArray(t->c, &cc, t->count + 1, sizeof(int));
    t->v = (float*)growArray(t->v, &cv, t->count + 1, sizeof(float));
    t->line = (int*)growArray(t->line, &cl, t->count + 1, sizeof(int));
    t->cap = cr;
    t->r[t->count] = r;
    t->c[t->count] = c;
    t->v[t->count] = v;
    t->line[t->count] = line;
    ++t->count;
}

static void freeTriples(Triples* t) {
    free(t->r);
    free(t->c);
    free(t->v);
    free(t->line);
    memset(t, 0, sizeof(*t));
}

// Returns 0 and fills *a, or prints one line and returns 1 with nothing held.
static int readMatrixMarket(const char* path, Csr* a) {
    FILE* f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return 1;
    }
    char buf[1024];
    int lineNo = 0;
    Triples t;
    memset(&t, 0, sizeof(t));
    int rc = readLine(f, buf, kLineCap, &lineNo);
    if (rc == 0) {
        fprintf(stderr, "%s: line 1: empty file, expected a %%%%MatrixMarket header\n", path);
        fclose(f);
        return 1;
    }
    if (rc < 0) {
        fprintf(stderr, "%s: line 1: line longer than %d characters\n", path, kLineCap - 2);
        fclose(f);
        return 1;
    }
    char banner[64], object[64], format[64], field[64], symmetry[64];
    if (strncmp(buf, "%%MatrixMarket", 14) != 0 ||
        sscanf(buf, "%63s %63s %63s %63s %63s", banner, object, format, field, symmetry) != 5) {
        fprintf(stderr, "%s: line 1: not a Matrix Market header (want %%%%MatrixMarket matrix coordinate FIELD SYMMETRY)\n", path);
        fclose(f);
        return 1;
    }
    lowerCase(object);
    lowerCase(format);
    lowerCase(field);
    lowerCase(symmetry);
    if (strcmp(object, "matrix") != 0) {
        fprintf(stderr, "%s: line 1: object \"%s\" is not supported (matrix)\n", path, object);
        fclose(f);
        return 1;
    }
    if (strcmp(format, "coordinate") != 0) {
        fprintf(stderr, "%s: line 1: format \"%s\" is not supported (coordinate)\n", path, format);
        fclose(f);
        return 1;
    }
    const int isPattern = strcmp(field, "pattern") == 0;
    const int isInteger = strcmp(field, "integer") == 0;
    if (!isPattern && !isInteger && strcmp(field, "real") != 0) {
        fprintf(stderr, "%s: line 1: field \"%s\" is not supported (real, integer or pattern)\n", path, field);
        fclose(f);
        return 1;
    }
    const int isSymmetric = strcmp(symmetry, "symmetric") == 0;
    if (!isSymmetric && strcmp(symmetry, "general") != 0) {
        fprintf(stderr, "%s: line 1: symmetry \"%s\" is not supported (general or symmetric)\n", path, symmetry);
        fclose(f);
        return 1;
    }

    // Size line, after any comment lines.
    for (;;) {
        rc = readLine(f, buf, kLineCap, &lineNo);
        if (rc == 0) {
            fprintf(stderr, "%s: line %d: file ends before the size line\n", path, lineNo + 1);
            fclose(f);
            return 1;
        }
        if (rc < 0) {
            fprintf(stderr, "%s: line %d: line longer than %d characters\n", path, lineNo, kLineCap - 2);
            fclose(f);
            return 1;
        }
        if (buf[0] != '%' && !isBlank(buf)) break;
    }
    long long rows = 0, cols = 0, entries = 0;
    {
        const char* s = skipSpace(buf);
        const char* e = NULL;
        int ok = parseIndex(s, &rows, &e);
        if (ok) ok = parseIndex(skipSpace(e), &cols, &e);
        if (ok) ok = parseIndex(skipSpace(e), &entries, &e);
        if (!ok || !isBlank(e)) {
            fprintf(stderr, "%s: line %d: size line needs three integers: rows columns entries\n", path, lineNo);
            fclose(f);
            return 1;
        }
    }
    if (rows < 1 || cols < 1 || rows > kMaxDim || cols > kMaxDim) {
        fprintf(stderr, "%s: line %d: rows and columns must be in 1..%d\n", path, lineNo, kMaxDim);
        fclose(f);
        return 1;
    }
    if (isSymmetric && rows != cols) {
        fprintf(stderr, "%s: line %d: a symmetric matrix must be square, not %lld x %lld\n", path, lineNo, rows, cols);
        fclose(f);
        return 1;
    }
    if (entries < 1) {
        fprintf(stderr, "%s: line %d: the matrix has no entries\n", path, lineNo);
        fclose(f);
        return 1;
    }
    if (entries > 1000000000LL) {
        fprintf(stderr, "%s: line %d: %lld entries is more than this program handles (1000000000)\n", path, lineNo, entries);
        fclose(f);
        return 1;
    }
    if ((double)entries > (double)rows * (double)cols) {
        fprintf(stderr, "%s: line %d: %lld entries do not fit a %lld x %lld matrix\n", path, lineNo, entries, rows, cols);
        fclose(f);
        return 1;
    }

    long long got = 0;
    int bad = 0;
    while (got < entries && !bad) {
        rc = readLine(f, buf, kLineCap, &lineNo);
        if (rc == 0) {
            fprintf(stderr, "%s: line %d: file ends after %lld of %lld entries\n", path, lineNo + 1, got, entries);
            bad = 1;
            break;
        }
        if (rc < 0) {
            fprintf(stderr, "%s: line %d: line longer than %d characters\n", path, lineNo, kLineCap - 2);
            bad = 1;
            break;
        }
        if (buf[0] == '%' || isBlank(buf)) continue;
        long long i = 0, j = 0;
        const char* e = NULL;
        if (!parseIndex(skipSpace(buf), &i, &e) || !parseIndex(skipSpace(e), &j, &e)) {
            fprintf(stderr, "%s: line %d: entry needs two integer indices: row column%s\n", path, lineNo, isPattern ? "" : " value");
            bad = 1;
            break;
        }
        if (i < 1 || i > rows) {
            fprintf(stderr, "%s: line %d: row %lld is outside 1..%lld\n", path, lineNo, i, rows);
            bad = 1;
            break;
        }
        if (j < 1 || j > cols) {
            fprintf(stderr, "%s: line %d: column %lld is outside 1..%lld\n", path, lineNo, j, cols);
            bad = 1;
            break;
        }
        if (isSymmetric && j > i) {
            fprintf(stderr, "%s: line %d: entry (%lld, %lld) is above the diagonal of a symmetric file\n", path, lineNo, i, j);
            bad = 1;
            break;
        }
        float value = 0.0f;
        const char* s = skipSpace(e);
        if (isPattern) {
            if (!isBlank(s)) {
                fprintf(stderr, "%s: line %d: a pattern entry takes no value\n", path, lineNo);
                bad = 1;
                break;
            }
            // A pattern file has no values; give each entry a varied one so
            // an index bug still shows. Symmetric partners share the value.
            value = matrixValue(hashPair(kSeedPattern, (uint64_t)i, (uint64_t)j));
        } else {
            if (isBlank(s)) {
                fprintf(stderr, "%s: line %d: entry needs a value\n", path, lineNo);
                bad = 1;
                break;
            }
            char tok[64];
            const char* after = copyToken(s, tok, (int)sizeof(tok));
            char* endp = NULL;
            errno = 0;
            double d = 0.0;
            if (isInteger) {
                const long long iv = strtoll(tok, &endp, 10);
                d = (double)iv;
            } else {
                d = strtod(tok, &endp);
            }
            if (endp == tok || *endp != '\0') {
                fprintf(stderr, "%s: line %d: value \"%s\" is not %s\n", path, lineNo, tok, isInteger ? "an integer" : "a number");
                bad = 1;
                break;
            }
            if (errno == ERANGE || !isfinite(d) || fabs(d) > 3.0e38) {
                fprintf(stderr, "%s: line %d: value \"%s\" is not a finite float\n", path, lineNo, tok);
                bad = 1;
                break;
            }
            if (!isBlank(after)) {
                fprintf(stderr, "%s: line %d: unexpected text after the value\n", path, lineNo);
                bad = 1;
                break;
            }
            value = (float)d;
        }
        pushTriple(&t, (int)(i - 1), (int)(j - 1), value, lineNo);
        if (isSymmetric && i != j) {
            pushTriple(&t, (int)(j - 1), (int)(i - 1), value, -lineNo);
        }
        ++got;
    }
    if (!bad) {
        for (;;) {
            rc = readLine(f, buf, kLineCap, &lineNo);
            if (rc == 0) break;
            if (rc < 0 || (buf[0] != '%' && !isBlank(buf))) {
                fprintf(stderr, "%s: line %d: more entries than the %lld the size line promises\n", path, lineNo, entries);
                bad = 1;
                break;
            }
        }
    }
    fclose(f);
    if (bad) {
        freeTriples(&t);
        return 1;
    }
    int later = 0, first = 0, dr = 0, dc = 0;
    if (triplesToCsr((int)rows, (int)cols, t.count, t.r, t.c, t.v, t.line, a, &later, &first, &dr, &dc)) {
        fprintf(stderr, "%s: line %d: duplicate entry (%d, %d), first given at line %d\n", path, later, dr + 1, dc + 1, first);
        freeTriples(&t);
        return 1;
    }
    freeTriples(&t);
    return 0;
}

// ---------------------------------------------------------------------------
// Generators (fixed seeds)
// ---------------------------------------------------------------------------

// A 3D mesh of side^3 nodes, kFeUnknowns unknowns per node, each node coupled
// to its 27-point neighbourhood: 81 nonzeros in an interior row, written in
// node order so that 16 consecutive rows see ~5 nodes and their neighbours,
// which is what makes the 16x16 blocks dense.
static void generateFeMesh(int side, Csr* a) {
    const long long nodes = (long long)side * side * side;
    const int rows = (int)(nodes * kFeUnknowns);
    a->rows = rows;
    a->cols = rows;
    a->rowPtr = (int*)xcalloc((size_t)rows + 1, sizeof(int));
    for (int pass = 0; pass < 2; ++pass) {
        long long k = 0;
        for (long long node = 0; node < nodes; ++node) {
            const int ix = (int)(node % side), iy = (int)((node / side) % side), iz = (int)(node / ((long long)side * side));
            for (int u = 0; u < kFeUnknowns; ++u) {
                const int row = (int)(node * kFeUnknowns + u);
                if (pass == 0) {
                    const int nx = 1 + (ix > 0) + (ix < side - 1);
                    const int ny = 1 + (iy > 0) + (iy < side - 1);
                    const int nz = 1 + (iz > 0) + (iz < side - 1);
                    a->rowPtr[row + 1] = a->rowPtr[row] + nx * ny * nz * kFeUnknowns;
                    continue;
                }
                for (int dz = -1; dz <= 1; ++dz) {
                    for (int dy = -1; dy <= 1; ++dy) {
                        for (int dx = -1; dx <= 1; ++dx) {
                            const int jx = ix + dx, jy = iy + dy, jz = iz + dz;
                            if (jx < 0 || jy < 0 || jz < 0 || jx >= side || jy >= side || jz >= side) continue;
                            const long long other = jx + (long long)side * (jy + (long long)side * jz);
                            for (int w = 0; w < kFeUnknowns; ++w) {
                                const int col = (int)(other * kFeUnknowns + w);
                                const int lo = row < col ? row : col, hi = row < col ? col : row;
                                a->colIdx[k] = col;
                                a->val[k] = matrixValue(hashPair(kSeedFe, (uint64_t)lo, (uint64_t)hi));
                                ++k;
                            }
                        }
                    }
                }
            }
        }
        if (pass == 0) {
            a->nnz = a->rowPtr[rows];
            a->colIdx = (int*)xmalloc((size_t)a->nnz * sizeof(int));
            a->val = (float*)xmalloc((size_t)a->nnz * sizeof(float));
        }
    }
}

// A band of half-width kBandHalfWidth around the diagonal, each off-diagonal
// pair kept with probability 1/2 (symmetrically): blocks along the diagonal
// hold 30..150 nonzeros, so every CSR-like type and some Dense ones appear.
static int bandKeeps(int i, int j) {
    if (i == j) return 1;
    const int lo = i < j ? i : j, hi = i < j ? j : i;
    return (int)(hashPair(kSeedBand, (uint64_t)lo, (uint64_t)hi) >> 63);
}

static void generateBanded(int n, Csr* a) {
    a->rows = n;
    a->cols = n;
    a->rowPtr = (int*)xcalloc((size_t)n + 1, sizeof(int));
    for (int pass = 0; pass < 2; ++pass) {
        long long k = 0;
        for (int i = 0; i < n; ++i) {
            const int j0 = i - kBandHalfWidth < 0 ? 0 : i - kBandHalfWidth;
            const int j1 = i + kBandHalfWidth > n - 1 ? n - 1 : i + kBandHalfWidth;
            int count = 0;
            for (int j = j0; j <= j1; ++j) {
                if (!bandKeeps(i, j)) continue;
                if (pass == 1) {
                    const int lo = i < j ? i : j, hi = i < j ? j : i;
                    a->colIdx[k] = j;
                    a->val[k] = matrixValue(hashPair(kSeedBand + 1, (uint64_t)lo, (uint64_t)hi));
                    ++k;
                }
                ++count;
            }
            if (pass == 0) a->rowPtr[i + 1] = a->rowPtr[i] + count;
        }
        if (pass == 0) {
            a->nnz = a->rowPtr[n];
            a->colIdx = (int*)xmalloc((size_t)a->nnz * sizeof(int));
            a->val = (float*)xmalloc((size_t)a->nnz * sizeof(float));
        }
    }
}

// Graph500-style Kronecker (R-MAT) graph: each of edgeFactor << scale edges
// picks one quadrant per level with probabilities A, B, C, D; the vertex
// labels are then shuffled as Graph500 does, which scatters the edges over
// the blocks. Self loops are dropped, both directions stored, duplicates
// merged, and each undirected edge gets one value.
static void generateKronecker(int scale, Csr* a) {
    const int n = 1 << scale;
    const long long edges = (long long)kKronEdgeFactor << scale;
    uint64_t state = kSeedKron;
    int* perm = (int*)xmalloc((size_t)n * sizeof(int));
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int i = n - 1; i > 0; --i) {
        const int j = (int)(splitmix64(&state) % (uint64_t)(i + 1));
        const int tmp = perm[i];
        perm[i] = perm[j];
        perm[j] = tmp;
    }
    int* r = (int*)xmalloc((size_t)edges * 2 * sizeof(int));
    int* c = (int*)xmalloc((size_t)edges * 2 * sizeof(int));
    long long count = 0;
    for (long long e = 0; e < edges; ++e) {
        int u = 0, v = 0;
        uint64_t bits = 0;
        for (int level = 0; level < scale; ++level) {
            // two 32-bit draws from each 64-bit number
            if ((level & 1) == 0) bits = splitmix64(&state);
            const double p = (double)((level & 1) ? (uint32_t)(bits >> 32) : (uint32_t)bits) * (1.0 / 4294967296.0);
            const int bu = p >= kKronA + kKronB;
            const int bv = (p >= kKronA && p < kKronA + kKronB) || p >= kKronA + kKronB + kKronC;
            u = (u << 1) | bu;
            v = (v << 1) | bv;
        }
        u = perm[u];
        v = perm[v];
        if (u == v) continue;
        r[count] = u;
        c[count] = v;
        ++count;
        r[count] = v;
        c[count] = u;
        ++count;
    }
    free(perm);
    int dl = 0, df = 0, dr = 0, dc = 0;
    triplesToCsr(n, n, count, r, c, NULL, NULL, a, &dl, &df, &dr, &dc);
    free(r);
    free(c);
    for (int i = 0; i < n; ++i) {
        for (int k = a->rowPtr[i]; k < a->rowPtr[i + 1]; ++k) {
            const int j = a->colIdx[k];
            const int lo = i < j ? i : j, hi = i < j ? j : i;
            a->val[k] = matrixValue(hashPair(kSeedKron + 1, (uint64_t)lo, (uint64_t)hi));
        }
    }
}

// ---------------------------------------------------------------------------
// The DB format builder (host, once per matrix)
// ---------------------------------------------------------------------------

// snippet: block-type
// The paper's rules. Skew of an axis is its busiest line over the mean line;
// both axes have 16 lines, so the ratio of the two skews is the ratio of the
// busiest column to the busiest row.
static int chooseBlockType(int policy, int nnz, const int* rowCount, const int* colCount) {
    if (policy == kPolicyAllCoo) return kTypeCoo;
    if (policy == kPolicyAllCsr) return kTypeCsr;
    if (nnz < kTh0) return kTypeCoo;
    if (nnz > kTh1) return kTypeDense;
    int maxRow = 0, maxCol = 0;
    for (int k = 0; k < kBlockDim; ++k) {
        if (rowCount[k] > maxRow) maxRow = rowCount[k];
        if (colCount[k] > maxCol) maxCol = colCount[k];
    }
    const double mean = (double)nnz / kBlockDim;
    const double skewRow = maxRow / (mean + kSkewEpsilon);
    const double skewCol = maxCol / (mean + kSkewEpsilon);
    if (skewCol / skewRow > kTh2) return kTypeForceCsc;  // a few full columns
    if (skewRow / skewCol > kTh2) return kTypeForceCsr;  // a few full rows
    return kTypeCsr;
}
// end snippet

static void putMask(unsigned char* bytes, int offset, int k, unsigned mask) {
    bytes[offset + 2 * k] = (unsigned char)(mask & 0xffu);
    bytes[offset + 2 * k + 1] = (unsigned char)(mask >> 8);
}

static unsigned getMask(const unsigned char* bytes, int offset, int k) {
    return (unsigned)bytes[offset + 2 * k] | ((unsigned)bytes[offset + 2 * k + 1] << 8);
}

// Writes one block (entries row-major in lr/lc/lv) at dst; returns words used.
// snippet: encode-block
static int encodeBlock(int type, int nnz, const int* lr, const int* lc, const float* lv,
                       unsigned* dst) {
    const int idxWords = indexWords(type, nnz);
    memset(dst, 0, (size_t)idxWords * sizeof(unsigned));
    unsigned char* bytes = (unsigned char*)dst;
    float* values = (float*)(dst + idxWords);
    if (type == kTypeCoo) {  // entries arrive row-major: copy them as they are
        for (int k = 0; k < nnz; ++k) {
            bytes[k] = (unsigned char)(lr[k] << 4 | lc[k]);
            values[k] = lv[k];
        }
        return idxWords + nnz;
    }
    int rowCount[16] = {0}, colCount[16] = {0};
    unsigned rowMask[16] = {0}, colMask[16] = {0};
    for (int k = 0; k < nnz; ++k) {
        ++rowCount[lr[k]];
        ++colCount[lc[k]];
        rowMask[lr[k]] |= 1u << lc[k];
        colMask[lc[k]] |= 1u << lr[k];
    }
    int rowStart[16], colStart[16];
    for (int k = 0, r = 0, c = 0; k < kBlockDim; ++k) {
        rowStart[k] = r;
        colStart[k] = c;
        r += rowCount[k];
        c += colCount[k];
    }
    if (type == kTypeDense) {
        for (int r = 0; r < kBlockDim; ++r) putMask(bytes, 0, r, rowMask[r]);
        memset(values, 0, kBlockArea * sizeof(float));
        for (int k = 0; k < nnz; ++k) values[lr[k] * kBlockDim + lc[k]] = lv[k];
    } else if (type == kTypeForceCsc) {
        for (int c = 0; c < kBlockDim; ++c) {
            bytes[c] = (unsigned char)colStart[c];
            putMask(bytes, 16, c, colMask[c]);
        }
        int cursor[16];
        memcpy(cursor, colStart, sizeof(cursor));
        for (int k = 0; k < nnz; ++k) values[cursor[lc[k]]++] = lv[k];  // rows ascend
    } else {  // ForceCSR and patched CSR share the row part
        for (int r = 0; r < kBlockDim; ++r) {
            bytes[r] = (unsigned char)rowStart[r];
            putMask(bytes, 16, r, rowMask[r]);
        }
        for (int k = 0; k < nnz; ++k) values[k] = lv[k];
        if (type == kTypeCsr) {
            // Column starts, then per entry in column order: its row and its
            // position inside that row, so push finds the value in the same
            // row-major array pull reads.
            int cursor[16];
            memcpy(cursor, colStart, sizeof(cursor));
            for (int c = 0; c < kBlockDim; ++c) bytes[48 + c] = (unsigned char)colStart[c];
            for (int k = 0; k < nnz; ++k) {
                const int r = lr[k], c = lc[k];
                const int inRow = popcount16(rowMask[r] & ((1u << c) - 1u));
                bytes[64 + cursor[c]++] = (unsigned char)(r << 4 | inRow);
            }
        }
    }
    return idxWords + valueCount(type, nnz);
}
// end snippet

// Orders A's entries by (row block, column block), keeping rows and then
// columns ascending inside each pair: two stable counting sorts, first by
// column block, then by row block. Runs of equal (row block, column block)
// in this order are the blocks, each already in row-major order.
typedef struct {
    int* order;               // nnz CSR positions
    unsigned char* localRow;  // nnz: row & 15 of each CSR position
} BlockOrder;

static void orderByBlock(const Csr* a, BlockOrder* o) {
    const int rowBlocks = (a->rows + kBlockDim - 1) / kBlockDim;
    const int colBlocks = (a->cols + kBlockDim - 1) / kBlockDim;
    int* rowBlockOf = (int*)xmalloc((size_t)a->nnz * sizeof(int) + 1);
    o->localRow = (unsigned char*)xmalloc((size_t)a->nnz + 1);
    for (int i = 0; i < a->rows; ++i) {
        for (int k = a->rowPtr[i]; k < a->rowPtr[i + 1]; ++k) {
            rowBlockOf[k] = i / kBlockDim;
            o->localRow[k] = (unsigned char)(i % kBlockDim);
        }
    }
    int* byCol = (int*)xmalloc((size_t)a->nnz * sizeof(int) + 1);
    const int buckets = rowBlocks > colBlocks ? rowBlocks : colBlocks;
    int* start = (int*)xcalloc((size_t)buckets + 1, sizeof(int));
    for (int k = 0; k < a->nnz; ++k) ++start[a->colIdx[k] / kBlockDim + 1];
    for (int c = 0; c < colBlocks; ++c) start[c + 1] += start[c];
    for (int k = 0; k < a->nnz; ++k) byCol[start[a->colIdx[k] / kBlockDim]++] = k;
    memset(start, 0, ((size_t)buckets + 1) * sizeof(int));
    for (int k = 0; k < a->nnz; ++k) ++start[rowBlockOf[k] + 1];
    for (int r = 0; r < rowBlocks; ++r) start[r + 1] += start[r];
    o->order = (int*)xmalloc((size_t)a->nnz * sizeof(int) + 1);
    for (int n = 0; n < a->nnz; ++n) {
        const int k = byCol[n];
        o->order[start[rowBlockOf[k]]++] = k;
    }
    free(start);
    free(byCol);
    free(rowBlockOf);
}

// Builds the format for one policy from the block order.
static void buildDb(const Csr* a, const BlockOrder* o, int policy, int segmentWeight, DbFormat* f) {
    memset(f, 0, sizeof(*f));
    f->segmentWeight = segmentWeight;
    f->rowBlocks = (a->rows + kBlockDim - 1) / kBlockDim;
    f->colBlocks = (a->cols + kBlockDim - 1) / kBlockDim;
    f->blockRowPtr = (int*)xcalloc((size_t)f->rowBlocks + 1, sizeof(int));
    long long descCap = 0, payloadCap = 0, segCap = 0, colsCap = 0;
    unsigned short* blockCols = NULL;  // per primary id, scattered into CSC order below
    f->rowSegPtr = (int*)xcalloc((size_t)f->rowBlocks + 1, sizeof(int));
    int lr[256], lc[256];
    float lv[256];
    int n = 0;  // position in o->order
    for (int rb = 0; rb < f->rowBlocks; ++rb) {
        const int lastRow = (rb + 1) * kBlockDim < a->rows ? (rb + 1) * kBlockDim : a->rows;
        const int endN = a->rowPtr[lastRow];  // entries of row blocks <= rb
        const int firstBlock = f->blocks;
        while (n < endN) {
            const int cb = a->colIdx[o->order[n]] / kBlockDim;
            int nnz = 0;
            int rowCount[16] = {0}, colCount[16] = {0};
            while (n < endN && a->colIdx[o->order[n]] / kBlockDim == cb) {
                const int k = o->order[n++];
                lr[nnz] = o->localRow[k];
                lc[nnz] = a->colIdx[k] - cb * kBlockDim;
                lv[nnz] = a->val[k];
                ++rowCount[lr[nnz]];
                ++colCount[lc[nnz]];
                ++nnz;
            }
            const int type = chooseBlockType(policy, nnz, rowCount, colCount);
            blockCols = (unsigned short*)growArray(blockCols, &colsCap, (long long)f->blocks + 1, sizeof(unsigned short));
            unsigned cols = 0u;
            for (int c = 0; c < kBlockDim; ++c) cols |= (colCount[c] > 0 ? 1u : 0u) << c;
            blockCols[f->blocks] = (unsigned short)cols;
            const long long words = indexWords(type, nnz) + valueCount(type, nnz);
            if (f->payloadWords > 2147483647LL - words) {
                fprintf(stderr, "matrix too large: the payload outgrows 32-bit word offsets\n");
                exit(EXIT_FAILURE);
            }
            f->payload = (unsigned*)growArray(f->payload, &payloadCap, f->payloadWords + words, sizeof(unsigned));
            f->desc = (int*)growArray(f->desc, &descCap, 4LL * (f->blocks + 1), sizeof(int));
            int* d = f->desc + 4LL * f->blocks;
            d[0] = rb;
            d[1] = cb;
            d[2] = (int)f->payloadWords;
            d[3] = nnz | (type << 16);
            encodeBlock(type, nnz, lr, lc, lv, f->payload + f->payloadWords);
            f->payloadWords += words;
            ++f->typeBlocks[type];
            f->typeNnz[type] += nnz;
            ++f->blocks;
        }
        f->blockRowPtr[rb + 1] = f->blocks;

        // snippet: segments
        // Pull schedule: cut this row block's blocks into segments of weight
        // segmentWeight; an empty row block still gets one (empty) segment,
        // so that its 16 rows of y are written.
        int segStart = firstBlock, weight = 0, made = 0;
        for (int b = firstBlock; b <= f->blocks; ++b) {
            const int closeHere = (b == f->blocks) ? (segStart < b || made == 0) : 0;
            if (b < f->blocks) weight += blockWeight(f->desc[4LL * b + 3]);
            const int full = (b < f->blocks) && weight >= segmentWeight;
            if (closeHere || full) {
                const int segEnd = (b == f->blocks) ? b : b + 1;
                f->segments = (int*)growArray(f->segments, &segCap, 4LL * (f->segmentCount + 1), sizeof(int));
                int* s = f->segments + 4LL * f->segmentCount;
                s[0] = rb;
                s[1] = segStart;
                s[2] = segEnd;
                s[3] = 0;
                ++f->segmentCount;
                ++made;
                segStart = segEnd;
                weight = 0;
            }
        }
        f->rowSegPtr[rb + 1] = f->segmentCount;
        // end snippet
    }

    // snippet: csc-view
    // The block-CSC view: count blocks per column block, then scatter primary
    // ids in primary (row-block) order, so rows ascend inside each column.
    // Beside each position, the block's column mask (2 bytes): push ANDs it
    // with the x mask and skips a block x does not reach before it reads the
    // block's descriptor, which on a graph is most of the blocks it lists.
    f->blockColPtr = (int*)xcalloc((size_t)f->colBlocks + 1, sizeof(int));
    f->cscRowIdx = (int*)xmalloc((size_t)f->blocks * sizeof(int) + 1);
    f->csc2csr = (int*)xmalloc((size_t)f->blocks * sizeof(int) + 1);
    f->cscColMask = (unsigned short*)xmalloc((size_t)f->blocks * sizeof(unsigned short) + 1);
    for (int b = 0; b < f->blocks; ++b) ++f->blockColPtr[f->desc[4LL * b + 1] + 1];
    for (int cb = 0; cb < f->colBlocks; ++cb) f->blockColPtr[cb + 1] += f->blockColPtr[cb];
    int* cursor = (int*)xmalloc((size_t)f->colBlocks * sizeof(int) + 1);
    memcpy(cursor, f->blockColPtr, (size_t)f->colBlocks * sizeof(int));
    for (int b = 0; b < f->blocks; ++b) {
        const int p = cursor[f->desc[4LL * b + 1]]++;
        f->csc2csr[p] = b;
        f->cscRowIdx[p] = f->desc[4LL * b];
        f->cscColMask[p] = blockCols[b];
    }
    free(cursor);
    free(blockCols);
    // end snippet
    long long lightNnz = 0, allNnz = 0;
    for (int b = 0; b < f->blocks; ++b) {
        const int packed = f->desc[4LL * b + 3];
        allNnz += packed & 0xffff;
        if (laneBlock(packed)) lightNnz += packed & 0xffff;
    }
    f->lightMatrix = (double)lightNnz > kLightNnzShare * (double)allNnz;
    // The column walk's group (pushColumnsBody, an ablation of push): when
    // no column block holds more blocks than a warp has lanes, a group of
    // lanes can take a whole column block: the smallest power of two that
    // holds the fullest one, so a warp serves 32 / group column blocks.
    f->longestColumn = 0;
    for (int cb = 0; cb < f->colBlocks; ++cb) {
        const int len = f->blockColPtr[cb + 1] - f->blockColPtr[cb];
        if (len > f->longestColumn) f->longestColumn = len;
    }
    f->columnGroup = 0;
    if (f->longestColumn <= kWarpSize) {
        f->columnGroup = 1;
        while (f->columnGroup < f->longestColumn) f->columnGroup *= 2;
    }
}

// Bytes as the paper's Table 4 counts them: indices and values, 4-byte
// floats and ints. The pull schedule is not part of the format.
// The views: both pointer arrays, and per block a CSC row id, a csc2csr
// entry and the 2-byte column mask (the CSR view's column ids are desc.col).
static long long dbViewBytes(const DbFormat* f) {
    return 4LL * (f->rowBlocks + 1) + 4LL * (f->colBlocks + 1) + 10LL * f->blocks;
}

static long long dbFormatBytes(const DbFormat* f) {
    return dbViewBytes(f) + 16LL * f->blocks + 4LL * f->payloadWords;
}

// ---------------------------------------------------------------------------
// Host walk: rebuild A from the blocks through each view, compare bitwise
// ---------------------------------------------------------------------------

// Reorders n decoded entries so that key (row or column) ascends, keeping
// the order among equal keys: a 16-bucket counting sort.
static void stableByKey(int n, int* key, int* other, float* vals) {
    int count[17] = {0};
    int k2[256], o2[256];
    float v2[256];
    for (int k = 0; k < n; ++k) ++count[key[k] + 1];
    for (int b = 0; b < kBlockDim; ++b) count[b + 1] += count[b];
    for (int k = 0; k < n; ++k) {
        const int p = count[key[k]]++;
        k2[p] = key[k];
        o2[p] = other[k];
        v2[p] = vals[k];
    }
    memcpy(key, k2, (size_t)n * sizeof(int));
    memcpy(other, o2, (size_t)n * sizeof(int));
    memcpy(vals, v2, (size_t)n * sizeof(float));
}

static int lowestBit(unsigned m) {
    return __builtin_ctz(m);
}

// All entries of block b in row-major order (rows, then columns ascending),
// read the way the row-wise microkernels read them. Returns the count, or -1
// when the block contradicts itself (a stored value off the Dense mask, a
// position past the block's values).
static int decodeRowMajor(const DbFormat* f, int b, int* lr, int* lc, float* lv) {
    const int* d = f->desc + 4LL * b;
    const int nnz = d[3] & 0xffff, type = d[3] >> 16;
    const unsigned* words = f->payload + d[2];
    const unsigned char* bytes = (const unsigned char*)words;
    const float* values = (const float*)(words + indexWords(type, nnz));
    int n = 0;
    if (type == kTypeCoo) {
        for (int k = 0; k < nnz; ++k, ++n) {
            lr[n] = bytes[k] >> 4;
            lc[n] = bytes[k] & 15;
            lv[n] = values[k];
        }
    } else if (type == kTypeDense) {
        for (int r = 0; r < kBlockDim; ++r) {
            const unsigned m = getMask(bytes, 0, r);
            for (int c = 0; c < kBlockDim; ++c) {
                const float v = values[r * kBlockDim + c];
                if ((m >> c) & 1u) {
                    lr[n] = r;
                    lc[n] = c;
                    lv[n++] = v;
                } else if (v != 0.0f) {
                    return -1;
                }
            }
        }
    } else if (type == kTypeForceCsc) {
        for (int c = 0; c < kBlockDim; ++c) {
            unsigned m = getMask(bytes, 16, c);
            for (int rank = 0; m != 0u; ++rank, m &= m - 1u) {
                if (bytes[c] + rank >= nnz) return -1;
                lc[n] = c;
                lr[n] = lowestBit(m);
                lv[n++] = values[bytes[c] + rank];
            }
        }
        stableByKey(n, lr, lc, lv);
    } else {  // ForceCSR and patched CSR: row starts and row masks
        for (int r = 0; r < kBlockDim; ++r) {
            unsigned m = getMask(bytes, 16, r);
            for (int rank = 0; m != 0u; ++rank, m &= m - 1u) {
                if (bytes[r] + rank >= nnz) return -1;
                lr[n] = r;
                lc[n] = lowestBit(m);
                lv[n++] = values[bytes[r] + rank];
            }
        }
    }
    return n;
}

// All entries of block b in column-major order, read the way the column-wise
// microkernels read them: ForceCSC through its column masks, patched CSR
// through its column map (each byte checked against the row masks).
static int decodeColMajor(const DbFormat* f, int b, int* lr, int* lc, float* lv) {
    const int* d = f->desc + 4LL * b;
    const int nnz = d[3] & 0xffff, type = d[3] >> 16;
    const unsigned* words = f->payload + d[2];
    const unsigned char* bytes = (const unsigned char*)words;
    const float* values = (const float*)(words + indexWords(type, nnz));
    int n = 0;
    if (type == kTypeForceCsc) {
        for (int c = 0; c < kBlockDim; ++c) {
            unsigned m = getMask(bytes, 16, c);
            for (int rank = 0; m != 0u; ++rank, m &= m - 1u) {
                if (bytes[c] + rank >= nnz) return -1;
                lc[n] = c;
                lr[n] = lowestBit(m);
                lv[n++] = values[bytes[c] + rank];
            }
        }
        return n;
    }
    if (type == kTypeCsr) {
        for (int c = 0; c < kBlockDim; ++c) {
            const int begin = bytes[48 + c];
            const int end = c == kBlockDim - 1 ? nnz : bytes[48 + c + 1];
            if (begin > end || end > nnz) return -1;
            for (int k = begin; k < end; ++k) {
                const int r = bytes[64 + k] >> 4, inRow = bytes[64 + k] & 15;
                const unsigned m = getMask(bytes, 16, r);
                if (!((m >> c) & 1u) || popcount16(m & ((1u << c) - 1u)) != inRow) return -1;
                if (k > begin && r <= lr[n - 1]) return -1;
                lc[n] = c;
                lr[n] = r;
                lv[n++] = values[bytes[r] + inRow];
            }
        }
        return n;
    }
    n = decodeRowMajor(f, b, lr, lc, lv);
    if (n > 0) stableByKey(n, lc, lr, lv);
    return n;
}

static int sameFloat(float a, float b) {
    return memcmp(&a, &b, sizeof(float)) == 0;
}

// Returns 0 when both views rebuild A exactly; otherwise prints why.
// snippet: walk-check
static int checkDbFormat(const char* name, const char* policy, const Csr* a, const Csr* at,
                         const DbFormat* f) {
    int lr[256], lc[256], pos[16];
    float lv[256];
    // The views agree: every block listed once by CSC, ids and order consistent.
    char* seen = (char*)xcalloc((size_t)f->blocks + 1, 1);
    for (int cb = 0; cb < f->colBlocks; ++cb) {
        for (int p = f->blockColPtr[cb]; p < f->blockColPtr[cb + 1]; ++p) {
            const int b = f->csc2csr[p];
            const int ok = b >= 0 && b < f->blocks && !seen[b] && f->desc[4LL * b + 1] == cb &&
                           f->desc[4LL * b] == f->cscRowIdx[p] &&
                           (p == f->blockColPtr[cb] || f->cscRowIdx[p - 1] < f->cscRowIdx[p]);
            if (!ok) {
                fprintf(stderr, "%s (%s): block-CSC view position %d is inconsistent\n", name, policy, p);
                free(seen);
                return 1;
            }
            seen[b] = 1;
        }
    }
    free(seen);
    // Through the block-CSR view: blocks in column order, each row-major, so
    // every row of A comes out with its columns ascending, as CSR holds it.
    for (int rb = 0; rb < f->rowBlocks; ++rb) {
        for (int r = 0; r < kBlockDim; ++r) {
            const int row = rb * kBlockDim + r;
            pos[r] = row < a->rows ? a->rowPtr[row] : 0;
        }
        for (int b = f->blockRowPtr[rb]; b < f->blockRowPtr[rb + 1]; ++b) {
            const int cb = f->desc[4LL * b + 1];
            const int n = decodeRowMajor(f, b, lr, lc, lv);
            if (n != (f->desc[4LL * b + 3] & 0xffff) || f->desc[4LL * b] != rb) {
                fprintf(stderr, "%s (%s): block %d is malformed\n", name, policy, b);
                return 1;
            }
            for (int k = 0; k < n; ++k) {
                const int row = rb * kBlockDim + lr[k];
                const int p = pos[lr[k]]++;
                if (row >= a->rows || p >= a->rowPtr[row + 1] || a->colIdx[p] != cb * kBlockDim + lc[k] ||
                    !sameFloat(a->val[p], lv[k])) {
                    fprintf(stderr, "%s (%s): block-CSR walk differs from A in row %d\n", name, policy, row);
                    return 1;
                }
            }
        }
        for (int r = 0; r < kBlockDim && rb * kBlockDim + r < a->rows; ++r) {
            if (pos[r] != a->rowPtr[rb * kBlockDim + r + 1]) {
                fprintf(stderr, "%s (%s): block-CSR walk misses entries of row %d\n", name, policy, rb * kBlockDim + r);
                return 1;
            }
        }
    }
    // Through the block-CSC view and csc2csr, against A^T (the CSC of A).
    for (int cb = 0; cb < f->colBlocks; ++cb) {
        for (int c = 0; c < kBlockDim; ++c) {
            const int col = cb * kBlockDim + c;
            pos[c] = col < a->cols ? at->rowPtr[col] : 0;
        }
        for (int p = f->blockColPtr[cb]; p < f->blockColPtr[cb + 1]; ++p) {
            // The CSC order visits blocks at scattered primary ids; fetching
            // a few ahead keeps the walk from waiting on every one.
            if (p + 8 < f->blocks) __builtin_prefetch(f->desc + 4LL * f->csc2csr[p + 8]);
            const int b = f->csc2csr[p];
            const int n = decodeColMajor(f, b, lr, lc, lv);
            unsigned cols = 0u;
            for (int k = 0; k < n; ++k) cols |= 1u << lc[k];
            if (n != (f->desc[4LL * b + 3] & 0xffff) || cols != f->cscColMask[p]) {
                fprintf(stderr, "%s (%s): block %d is malformed in column order\n", name, policy, b);
                return 1;
            }
            for (int k = 0; k < n; ++k) {
                const int col = cb * kBlockDim + lc[k];
                const int q = pos[lc[k]]++;
                if (col >= a->cols || q >= at->rowPtr[col + 1] ||
                    at->colIdx[q] != f->cscRowIdx[p] * kBlockDim + lr[k] || !sameFloat(at->val[q], lv[k])) {
                    fprintf(stderr, "%s (%s): block-CSC walk differs from A in column %d\n", name, policy, col);
                    return 1;
                }
            }
        }
        for (int c = 0; c < kBlockDim && cb * kBlockDim + c < a->cols; ++c) {
            if (pos[c] != at->rowPtr[cb * kBlockDim + c + 1]) {
                fprintf(stderr, "%s (%s): block-CSC walk misses entries of column %d\n", name, policy, cb * kBlockDim + c);
                return 1;
            }
        }
    }
    return 0;
}
// end snippet

// ---------------------------------------------------------------------------
// x vectors and the CPU reference (the judge)
// ---------------------------------------------------------------------------

// x values in +-[0.5, 1.5): nonzero and varied.
static float vectorValue(uint64_t bits) {
    const float mag = (float)(0.5 + unit01(bits));
    return (bits & 1u) ? -mag : mag;
}

// Positions with seed 42: uniformly random, or the same count packed into
// whole aligned 16-entry blocks drawn at random.
static void makeVector(const Input* in, int pattern, double density, XCase* xc) {
    const int cols = in->a.cols;
    const int colBlocks = in->db[0].colBlocks;
    long long want = (long long)floor(density * cols + 0.5);
    if (want < 1) want = 1;
    if (want > cols) want = cols;
    xc->pattern = pattern;
    xc->density = density;
    xc->nonzeros = (int)want;
    xc->x = (float*)xcalloc((size_t)colBlocks * kBlockDim, sizeof(float));
    uint64_t state = kSeedX;
    long long placed = 0;
    if (pattern == kPatternRandom) {
        while (placed < want) {
            const int j = (int)(splitmix64(&state) % (uint64_t)cols);
            if (xc->x[j] != 0.0f) continue;
            xc->x[j] = vectorValue(splitmix64(&state));
            ++placed;
        }
    } else {
        char* used = (char*)xcalloc((size_t)colBlocks, 1);
        while (placed < want) {
            const int cb = (int)(splitmix64(&state) % (uint64_t)colBlocks);
            if (used[cb]) continue;
            used[cb] = 1;
            for (int k = 0; k < kBlockDim && placed < want; ++k) {
                const int j = cb * kBlockDim + k;
                if (j >= cols) break;
                xc->x[j] = vectorValue(splitmix64(&state));
                ++placed;
            }
        }
        free(used);
    }
}

// Host view of the metadata step, plus the work each path will see.
static void analyseVector(const Input* in, XCase* xc) {
    const DbFormat* f = &in->db[0];
    xc->mask = (unsigned short*)xcalloc((size_t)f->colBlocks, sizeof(unsigned short));
    xc->activeBlocks = 0;
    xc->pushTasks = 0;
    xc->products = 0;
    for (int cb = 0; cb < f->colBlocks; ++cb) {
        unsigned m = 0;
        for (int k = 0; k < kBlockDim; ++k) {
            if (xc->x[cb * kBlockDim + k] != 0.0f) {
                m |= 1u << k;
                xc->products += in->at.rowPtr[cb * kBlockDim + k + 1] - in->at.rowPtr[cb * kBlockDim + k];
            }
        }
        xc->mask[cb] = (unsigned short)m;
        if (m) {
            ++xc->activeBlocks;
            xc->pushTasks += f->blockColPtr[cb + 1] - f->blockColPtr[cb];
        }
    }
    xc->paperPush = choosePush(xc->activeBlocks, f->colBlocks);
    xc->pushChosen = choosePushByWork(xc->pushTasks, f->blocks, f->lightMatrix);
}

// snippet: reference
// y in double, and per row the error a float path may make. A row sums k
// products of floats; each product and each addition rounds once at 2^-24
// relative to the running magnitude, which Sum|a_ij x_j| bounds, so
// (k + 2) * 2^-24 * Sum|a_ij x_j| covers any summation order (the +2 is for
// the product and the final store). The floor lets an exact zero through.
static void cpuReference(const Csr* a, XCase* xc) {
    xc->want = (double*)xmalloc((size_t)a->rows * sizeof(double));
    xc->tol = (double*)xmalloc((size_t)a->rows * sizeof(double));
    xc->sumWant = 0.0;
    xc->sumTol = 0.0;
    xc->rowsNonzero = 0;
    for (int i = 0; i < a->rows; ++i) {
        double sum = 0.0, mag = 0.0;
        int k = 0;
        for (int p = a->rowPtr[i]; p < a->rowPtr[i + 1]; ++p) {
            const float xj = xc->x[a->colIdx[p]];
            if (xj == 0.0f) continue;
            const double prod = (double)a->val[p] * (double)xj;
            sum += prod;
            mag += fabs(prod);
            ++k;
        }
        xc->want[i] = sum;
        xc->tol[i] = (k + 2) * 0x1p-24 * mag + 1e-30;
        xc->sumWant += sum;
        xc->sumTol += xc->tol[i];
        xc->rowsNonzero += k > 0;
    }
}
// end snippet

// Counts rows outside tolerance (NaN fails) and checks the canary zone after
// y and the checksum. Prints the first bad row. Returns the number of faults.
static int judgeY(const char* what, const XCase* xc, const float* got, int rows, int canaryStart,
                  int allocated) {
    int badRows = 0, firstBad = -1;
    double sum = 0.0;
    for (int i = 0; i < rows; ++i) {
        const double err = fabs((double)got[i] - xc->want[i]);
        if (!(err <= xc->tol[i])) {
            if (firstBad < 0) firstBad = i;
            ++badRows;
        }
        sum += got[i];
    }
    int faults = 0;
    if (badRows > 0) {
        fprintf(stderr, "%s: %d of %d rows wrong; first row %d: got %.9g, want %.9g (tol %.3g)\n", what,
                badRows, rows, firstBad, (double)got[firstBad], xc->want[firstBad], xc->tol[firstBad]);
        ++faults;
    }
    // Second check: the checksum. It passes whenever every row does, but it
    // is what catches a y that is right row by row and then also written
    // somewhere it should not be, together with the canary below.
    if (!(fabs(sum - xc->sumWant) <= xc->sumTol * (1.0 + 1e-9) + 1e-30)) {
        fprintf(stderr, "%s: checksum %.9g, want %.9g\n", what, sum, xc->sumWant);
        ++faults;
    }
    const unsigned char* canary = (const unsigned char*)(got + canaryStart);
    for (size_t k = 0; k < (size_t)(allocated - canaryStart) * sizeof(float); ++k) {
        if (canary[k] != kCanaryByte) {
            fprintf(stderr, "%s: wrote past the end of y (float %d after row %d)\n", what,
                    canaryStart + (int)(k / sizeof(float)), rows);
            ++faults;
            break;
        }
    }
    return faults;
}

// ---------------------------------------------------------------------------
// BFS graphs and the CPU search (the judge of part 2)
// ---------------------------------------------------------------------------

// A BFS needs an undirected graph: the pattern of A + A^T without the
// diagonal, merged row by row from A and its transpose (both sorted).
static void symmetrizePattern(const Csr* a, const Csr* at, Csr* g) {
    const int n = a->rows;
    g->rows = n;
    g->cols = n;
    g->rowPtr = (int*)xcalloc((size_t)n + 1, sizeof(int));
    for (int pass = 0; pass < 2; ++pass) {
        long long k = 0;
        for (int i = 0; i < n; ++i) {
            int p = a->rowPtr[i], q = at->rowPtr[i];
            const int pe = a->rowPtr[i + 1], qe = at->rowPtr[i + 1];
            int count = 0;
            while (p < pe || q < qe) {
                const int cp = p < pe ? a->colIdx[p] : n, cq = q < qe ? at->colIdx[q] : n;
                const int j = cp < cq ? cp : cq;
                if (cp == j) ++p;
                if (cq == j) ++q;
                if (j == i) continue;
                if (pass == 1) {
                    g->colIdx[k] = j;
                    g->val[k] = 1.0f;
                    ++k;
                }
                ++count;
            }
            if (pass == 0) g->rowPtr[i + 1] = g->rowPtr[i] + count;
        }
        if (pass == 0) {
            g->nnz = g->rowPtr[n];
            g->colIdx = (int*)xmalloc((size_t)g->nnz * sizeof(int) + 4);
            g->val = (float*)xmalloc((size_t)g->nnz * sizeof(float) + 4);
        }
    }
}

// A vertex without edges: no search reaches it, so DB-BFS counts it visited
// from the start (the GPU's unreachable masks, the CPU's open-block count
// and the graph line all use this one test).
static int hasNoEdges(const Csr* g, int v) {
    return g->rowPtr[v + 1] == g->rowPtr[v];
}

// Queue BFS from one root: exact levels, and per level the numbers the
// GPU's level step counts (frontier vertices, nonzero vertex blocks, push
// tasks), so the GPU's counts and auto's path can be judged exactly too.
static void cpuBfs(BfsGraph* bg, int r, int* queue, int* stamp) {
    const Csr* g = &bg->adj;
    const DbFormat* f = &bg->db;
    int* dist = bg->dist + (long long)r * g->rows;
    for (int v = 0; v < g->rows; ++v) dist[v] = -1;
    for (int cb = 0; cb < f->colBlocks; ++cb) stamp[cb] = -1;
    const int root = bg->roots[r];
    dist[root] = 0;
    queue[0] = root;
    int head = 0, tail = 1, levels = 0;
    long long degrees = 0;
    int* lv = (int*)xmalloc(sizeof(int) * 1024);
    int* la = (int*)xmalloc(sizeof(int) * 1024);
    long long* lt = (long long*)xmalloc(sizeof(long long) * 1024);
    long long cap = 1024;
    while (head < tail) {
        const int levelEnd = tail;
        long long c1 = cap, c2 = cap, c3 = cap;
        lv = (int*)growArray(lv, &c1, levels + 1, sizeof(int));
        la = (int*)growArray(la, &c2, levels + 1, sizeof(int));
        lt = (long long*)growArray(lt, &c3, levels + 1, sizeof(long long));
        cap = c1;
        lv[levels] = levelEnd - head;
        la[levels] = 0;
        lt[levels] = 0;
        for (; head < levelEnd; ++head) {
            const int u = queue[head];
            const int cb = u / kBlockDim;
            if (stamp[cb] != levels) {
                stamp[cb] = levels;
                ++la[levels];
                lt[levels] += f->blockColPtr[cb + 1] - f->blockColPtr[cb];
            }
            degrees += g->rowPtr[u + 1] - g->rowPtr[u];
            for (int k = g->rowPtr[u]; k < g->rowPtr[u + 1]; ++k) {
                const int v = g->colIdx[k];
                if (dist[v] < 0) {
                    dist[v] = dist[u] + 1;
                    queue[tail++] = v;
                }
            }
        }
        ++levels;
    }
    // Open blocks per level, as the GPU counts them when it closes a level:
    // the matrix blocks of every row block that still holds a vertex with
    // edges and no level. Row block rb is open at levels 0 .. until-1 (an
    // unreached vertex keeps it open past the last level).
    long long* lo = (long long*)xcalloc((size_t)levels + 2, sizeof(long long));
    for (int rb = 0; rb < f->rowBlocks; ++rb) {
        int until = 0;
        for (int v = rb * kBlockDim; v < (rb + 1) * kBlockDim && v < g->rows; ++v) {
            if (hasNoEdges(g, v)) continue;  // visited from the start
            const int last = dist[v] < 0 ? levels + 1 : dist[v];
            if (last > until) until = last;
        }
        const long long nb = f->blockRowPtr[rb + 1] - f->blockRowPtr[rb];
        lo[0] += nb;
        lo[until] -= nb;
    }
    for (int l = 1; l <= levels + 1; ++l) lo[l] += lo[l - 1];
    bg->levelOpen[r] = lo;
    bg->levels[r] = levels;
    bg->edges[r] = degrees / 2;  // each undirected edge is stored twice
    bg->levelVertices[r] = lv;
    bg->levelActive[r] = la;
    bg->levelTasks[r] = lt;
}

// Roots as Graph500 draws them: a fixed seed, degree >= 1, no repeats.
static void pickRoots(BfsGraph* bg, int count) {
    const Csr* g = &bg->adj;
    uint64_t state = kSeedRoots;
    int withEdges = 0;
    for (int v = 0; v < g->rows; ++v) withEdges += g->rowPtr[v + 1] > g->rowPtr[v];
    if (count > withEdges) count = withEdges;
    bg->rootCount = 0;
    while (bg->rootCount < count) {
        const int v = (int)(splitmix64(&state) % (uint64_t)g->rows);
        if (g->rowPtr[v + 1] == g->rowPtr[v]) continue;
        int seen = 0;
        for (int k = 0; k < bg->rootCount; ++k) seen |= bg->roots[k] == v;
        if (!seen) bg->roots[bg->rootCount++] = v;
    }
}

static void freeBfsGraph(BfsGraph* bg) {
    freeCsr(&bg->adj);
    freeDb(&bg->db);
    free(bg->dist);
    for (int r = 0; r < bg->rootCount; ++r) {
        free(bg->levelVertices[r]);
        free(bg->levelActive[r]);
        free(bg->levelTasks[r]);
        free(bg->levelOpen[r]);
    }
    bg->dist = NULL;
    bg->rootCount = 0;
}

// Weights of a decoding layer: values drawn with a fixed seed, then the
// smaller half by magnitude set to zero (the threshold is the median of |w|,
// found by selection). Kept in CSR and, for cuBLAS, dense row-major with
// the zeros in place.
static float selectKth(float* v, long long n, long long k) {
    long long lo = 0, hi = n - 1;
    while (lo < hi) {  // Hoare partition around the middle element
        const float pivot = v[lo + (hi - lo) / 2];
        long long i = lo, j = hi;
        while (i <= j) {
            while (v[i] < pivot) ++i;
            while (v[j] > pivot) --j;
            if (i <= j) {
                const float t = v[i];
                v[i] = v[j];
                v[j] = t;
                ++i;
                --j;
            }
        }
        if (k <= j) hi = j;
        else if (k >= i) lo = i;
        else break;
    }
    return v[k];
}

static void generateDecodeLayer(int rows, int cols, uint64_t seed, Csr* a, float** dense) {
    const long long total = (long long)rows * cols;
    float* w = (float*)xmalloc((size_t)total * sizeof(float));
    float* mag = (float*)xmalloc((size_t)total * sizeof(float));
    uint64_t state = seed;
    for (long long k = 0; k < total; ++k) {
        w[k] = matrixValue(splitmix64(&state));
        mag[k] = fabsf(w[k]);
    }
    const float threshold = selectKth(mag, total, (long long)(kDecodePrune * (double)total));
    free(mag);
    a->rows = rows;
    a->cols = cols;
    a->rowPtr = (int*)xcalloc((size_t)rows + 1, sizeof(int));
    long long kept = 0;
    for (long long k = 0; k < total; ++k) {
        if (fabsf(w[k]) >= threshold) {
            ++kept;
        } else {
            w[k] = 0.0f;
        }
    }
    a->nnz = (int)kept;
    a->colIdx = (int*)xmalloc((size_t)kept * sizeof(int) + 4);
    a->val = (float*)xmalloc((size_t)kept * sizeof(float) + 4);
    long long n = 0;
    for (int i = 0; i < rows; ++i) {
        for (int j = 0; j < cols; ++j) {
            const float v = w[(long long)i * cols + j];
            if (v != 0.0f) {
                a->colIdx[n] = j;
                a->val[n++] = v;
            }
        }
        a->rowPtr[i + 1] = (int)n;
    }
    *dense = w;
}

// x of a decoding step: every entry drawn, then only the top kDecodeKeepX
// by magnitude kept (the rest set to zero), as a magnitude threshold on a
// real activation would.
static void makeDecodeVector(const Input* in, XCase* xc) {
    const int cols = in->a.cols;
    const int colBlocks = in->db[0].colBlocks;
    memset(xc, 0, sizeof(*xc));
    xc->pattern = kPatternRandom;
    xc->density = kDecodeKeepX;
    xc->x = (float*)xcalloc((size_t)colBlocks * kBlockDim, sizeof(float));
    float* mag = (float*)xmalloc((size_t)cols * sizeof(float));
    uint64_t state = kSeedX;
    for (int j = 0; j < cols; ++j) {
        xc->x[j] = vectorValue(splitmix64(&state));
        mag[j] = fabsf(xc->x[j]);
    }
    const long long drop = cols - (long long)floor(kDecodeKeepX * cols + 0.5);
    const float threshold = selectKth(mag, cols, drop < cols ? drop : cols - 1);
    free(mag);
    xc->nonzeros = 0;
    for (int j = 0; j < cols; ++j) {
        if (fabsf(xc->x[j]) >= threshold) {
            ++xc->nonzeros;
        } else {
            xc->x[j] = 0.0f;
        }
    }
}

// ---------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------

// Everything a DB kernel reads, passed by value.
typedef struct {
    int rows, cols, rowBlocks, colBlocks, blocks, segmentCount;
    int lightMatrix;    // DbFormat.lightMatrix, for the work rule
    int columnGroup;    // DbFormat.columnGroup, for the column walk
    int fullPasses;     // push's task ranges: whole passes of 32 (see pushBody)
    const int4* desc;
    const unsigned* payload;
    const int* blockColPtr;
    const int* cscRowIdx;
    const int* csc2csr;
    const unsigned short* cscColMask;  // per CSC position: the block's columns
    const int4* segments;
    const int* rowSegPtr;
    float* scratch;     // segmentCount * 16 partial row sums
    int* rowCounter;    // rowBlocks arrival counters, zero between calls
} DbView;

// --- The metadata step -----------------------------------------------------

// DB auto's decision for the graph ablation (buildAutoGraph), made on the
// device by the metadata step's last thread block (see below): the graph's
// conditional node runs dbPush or dbPull on the value it sets. arrivals
// NULL: no graph waits, nothing to decide (every other variant).
typedef struct {
    cudaGraphConditionalHandle handle;
    unsigned* arrivals;   // [0] thread blocks finished, back to 0 after each call; [1] the last decision
    int blocks;           // the matrix's nonzero blocks, for the work rule
    int lightMatrix;
} AutoDecision;

// snippet: meta-kernel
// Builds the 16-bit mask of every x block, counts the nonzero blocks, and
// lists them with their offset in the flattened push task space. One warp
// reads 32 entries, two x blocks, and one ballot gives both masks. A thread
// block scans its 128 blocks and makes ONE 64-bit atomic that returns, at
// once, its place in the list (high half) and in the task space (low half);
// because both halves advance together, list offsets come out increasing.
// It also zeroes y (push accumulates into it) and clears the counter the
// next call will use, so a call costs no memset launches. In the graph
// ablation the last thread block to finish (an arrival counter tells it)
// reads the whole count, applies the work rule and sets the graph's
// condition: the choice costs one atomic per thread block, not a kernel.
// Launch: kMetaThreads threads; gridDim.x * 128 >= max(colBlocks, rowBlocks).
__global__ void __launch_bounds__(kMetaThreads)
buildVectorMeta(const float* __restrict__ x, int cols, int colBlocks, int rows,
                const int* __restrict__ blockColPtr, unsigned short* __restrict__ xmask,
                int2* __restrict__ activeList, unsigned long long* counter,
                unsigned long long* counterToClear, float* __restrict__ y, int zeroY, AutoDecision decide) {
    __shared__ int sFlag[kMetaColBlocksPerCta];
    __shared__ int sLen[kMetaColBlocksPerCta];
    __shared__ int sWarpFlag[kMetaScanWarps];
    __shared__ int sWarpLen[kMetaScanWarps];
    __shared__ unsigned long long sBase;
    // The kernel after this one (launched with PDL) may be scheduled now; it
    // waits for this grid's results in cudaGridDependencySynchronize.
    cudaTriggerProgrammaticLaunchCompletion();
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    const int firstCb = blockIdx.x * kMetaColBlocksPerCta;
    // Every load of the warp's steps is issued before the first ballot needs
    // one, the column pointers too, whether x reaches the block or not. As a
    // loop that loaded, then balloted, each step waited for its own load: 8
    // memory round trips in a row, and the step took 5 to 7 us on any input
    // (the lesson's earlier transcripts, in the git history).
    float v[kMetaSteps];
    int colBegin[kMetaSteps], colEnd[kMetaSteps];
#pragma unroll
    for (int step = 0; step < kMetaSteps; ++step) {
        const int local = (step * kMetaWarps + warp) * 2;
        const long long e = (long long)(firstCb + local) * kBlockDim + lane;
        v[step] = e < cols ? x[e] : 0.0f;
        const int cb = firstCb + local + (lane & 1);
        colBegin[step] = 0;
        colEnd[step] = 0;
        if (lane < 2 && cb < colBlocks) {
            colBegin[step] = blockColPtr[cb];
            colEnd[step] = blockColPtr[cb + 1];
        }
    }
#pragma unroll
    for (int step = 0; step < kMetaSteps; ++step) {
        const int local = (step * kMetaWarps + warp) * 2;
        const unsigned bits = __ballot_sync(kFullMask, v[step] != 0.0f);
        if (lane < 2) {
            const int cb = firstCb + local + lane;
            const unsigned m = lane == 0 ? (bits & 0xffffu) : (bits >> 16);
            int active = 0, len = 0;
            if (cb < colBlocks) {
                xmask[cb] = (unsigned short)m;
                if (m != 0u) {
                    active = 1;
                    len = colEnd[step] - colBegin[step];
                }
            }
            sFlag[local + lane] = active;
            sLen[local + lane] = len;
        }
    }
    __syncthreads();
    int flag = 0, len = 0, flagIncl = 0, lenIncl = 0;
    if (threadIdx.x < kMetaColBlocksPerCta) {  // warps 0..3, whole warps
        flag = sFlag[threadIdx.x];
        len = sLen[threadIdx.x];
        flagIncl = flag;
        lenIncl = len;
        for (int o = 1; o < kWarpSize; o <<= 1) {
            const int f = __shfl_up_sync(kFullMask, flagIncl, o);
            const int l = __shfl_up_sync(kFullMask, lenIncl, o);
            if (lane >= o) {
                flagIncl += f;
                lenIncl += l;
            }
        }
        if (lane == kWarpSize - 1) {
            sWarpFlag[warp] = flagIncl;
            sWarpLen[warp] = lenIncl;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        int totalFlag = 0, totalLen = 0;
        for (int w = 0; w < kMetaScanWarps; ++w) {
            totalFlag += sWarpFlag[w];
            totalLen += sWarpLen[w];
        }
        unsigned long long base = 0ull;
        if (totalFlag > 0) {
            base = atomicAdd(counter, ((unsigned long long)totalFlag << 32) | (unsigned)totalLen);
        }
        sBase = base;
        if (blockIdx.x == 0 && counterToClear != NULL) *counterToClear = 0ull;
        if (decide.arrivals != NULL) {
            __threadfence();  // this block's count is in before it says it arrived
            if (atomicAdd(&decide.arrivals[0], 1u) == gridDim.x - 1) {  // the last: every count is in
                __threadfence();
                const unsigned long long c = atomicAdd(counter, 0ull);
                const unsigned push = choosePushByWork((long long)(c & 0xffffffffull), decide.blocks,
                                                       decide.lightMatrix);
                cudaGraphSetConditional(decide.handle, push);
                decide.arrivals[1] = push;
                decide.arrivals[0] = 0u;  // ready for the next call
            }
        }
    }
    __syncthreads();
    if (threadIdx.x < kMetaColBlocksPerCta && flag) {
        int flagBefore = 0, lenBefore = 0;
        for (int w = 0; w < warp; ++w) {
            flagBefore += sWarpFlag[w];
            lenBefore += sWarpLen[w];
        }
        const int k = (int)(sBase >> 32) + flagBefore + flagIncl - 1;
        const int offset = (int)(sBase & 0xffffffffull) + lenBefore + lenIncl - len;
        activeList[k] = make_int2(firstCb + threadIdx.x, offset);
    }
    if (zeroY) {
        const long long r0 = (long long)blockIdx.x * kMetaRowsPerCta;
        for (long long r = r0 + threadIdx.x; r < r0 + kMetaRowsPerCta && r < rows; r += blockDim.x) {
            y[r] = 0.0f;
        }
    }
}
// end snippet

// --- Block microkernels ----------------------------------------------------
// Each takes one warp and one 16x16 block and returns the block's 16 row sums
// in lanes 0..15 (row = lane) and 0 in lanes 16..31. The caller has put the
// block's 16 x values in sx (per warp shared memory) and keeps srow (16
// floats) at zero between calls.

// snippet: micro-csr-rows
// ForceCSR, and patched CSR when the x block is busy: two lanes per row take
// turns over the row's active columns (row mask AND x mask); the position of
// column c in the row's values is the popcount of the mask below c.
__device__ float microCsrRows(const unsigned char* bytes, const float* vals, unsigned xm,
                              const float* sx, int lane) {
    const int r = lane >> 1, half = lane & 1;
    const unsigned rowMask = ((const unsigned short*)(bytes + 16))[r];
    const int rowStart = bytes[r];
    unsigned active = rowMask & xm;
    float sum = 0.0f;
    for (int n = 0; active != 0u; ++n) {
        const int c = __ffs(active) - 1;
        if ((n & 1) == half) {
            sum += vals[rowStart + __popc(rowMask & ((1u << c) - 1u))] * sx[c];
        }
        active &= active - 1u;
    }
    sum += __shfl_xor_sync(kFullMask, sum, 1);
    const float mine = __shfl_sync(kFullMask, sum, 2 * (lane & 15));
    return lane < kBlockDim ? mine : 0.0f;
}
// end snippet

// ForceCSC (and Dense when the x block is nearly empty): lane = row, the two
// half-warps split the columns 0..7 and 8..15; only active columns are read.
__device__ float microCscColumns(const unsigned char* bytes, const float* vals, unsigned xm,
                                 const float* sx, int lane, int dense) {
    const int r = lane & 15;
    unsigned active = xm & (lane < kBlockDim ? 0x00ffu : 0xff00u);
    float sum = 0.0f;
    while (active != 0u) {
        const int c = __ffs(active) - 1;
        if (dense) {
            sum += vals[r * kBlockDim + c] * sx[c];
        } else {
            const unsigned colMask = ((const unsigned short*)(bytes + 16))[c];
            if ((colMask >> r) & 1u) {
                sum += vals[bytes[c] + __popc(colMask & ((1u << r) - 1u))] * sx[c];
            }
        }
        active &= active - 1u;
    }
    sum += __shfl_xor_sync(kFullMask, sum, 16);
    return lane < kBlockDim ? sum : 0.0f;
}

// snippet: micro-dense
// Dense with a busy x block: lane = column, the two half-warps take rows
// 2i and 2i+1, so each step reads 128 contiguous bytes; a butterfly over the
// 16 lanes of a half leaves row 2i+half's sum in all of them, and the lane
// whose row that is keeps it.
__device__ float microDenseRows(const float* vals, const float* sx, int lane) {
    const int c = lane & 15, half = lane >> 4;
    const float xc = sx[c];
    float mine = 0.0f;
#pragma unroll
    for (int i = 0; i < kBlockDim / 2; ++i) {
        float v = vals[(2 * i + half) * kBlockDim + c] * xc;
        v += __shfl_xor_sync(kFullMask, v, 8);
        v += __shfl_xor_sync(kFullMask, v, 4);
        v += __shfl_xor_sync(kFullMask, v, 2);
        v += __shfl_xor_sync(kFullMask, v, 1);
        if ((c >> 1) == i && (c & 1) == half) mine = v;
    }
    mine += __shfl_xor_sync(kFullMask, mine, 16);
    return lane < kBlockDim ? mine : 0.0f;
}
// end snippet

// COO: lane k takes entry k (32 at a time) and adds into the shared row sums.
// Patched CSR with a sparse x block: only the active columns' entries are
// visited through the column map; each byte gives the row and the position
// inside the row, so the value comes from the same row-major array.
__device__ float microScatter(const unsigned char* bytes, const float* vals, int nnz, int type,
                              unsigned xm, const float* sx, float* srow, int lane) {
    if (type == 0) {  // COO
        for (int k = lane; k < nnz; k += kWarpSize) {
            const int rc = bytes[k], c = rc & 15;
            if ((xm >> c) & 1u) atomicAdd(&srow[rc >> 4], vals[k] * sx[c]);
        }
    } else {  // patched CSR, column path
        unsigned active = xm;
        while (active != 0u) {  // xm is warp uniform, so is this loop
            const int c = __ffs(active) - 1;
            const int begin = bytes[48 + c];
            const int end = c == kBlockDim - 1 ? nnz : bytes[48 + c + 1];
            const int k = begin + lane;
            if (k < end) {
                const int e = bytes[64 + k], r = e >> 4;
                atomicAdd(&srow[r], vals[bytes[r] + (e & 15)] * sx[c]);
            }
            active &= active - 1u;
        }
    }
    __syncwarp();
    const float mine = lane < kBlockDim ? srow[lane] : 0.0f;
    __syncwarp();
    if (lane < kBlockDim) srow[lane] = 0.0f;
    __syncwarp();
    return mine;
}

// snippet: micro-dispatch
// The local choice: block type from the format, and how busy this x block is.
__device__ float blockRowSums(const unsigned* __restrict__ payload, int4 d, unsigned xm,
                              const float* sx, float* srow, int lane) {
    const int type = d.w >> 16, nnz = d.w & 0xffff;
    const unsigned* words = payload + d.z;
    const unsigned char* bytes = (const unsigned char*)words;
    const float* vals = (const float*)(words + indexWords(type, nnz));
    const int busy = __popc(xm) > kSparseXBlockMax;
    if (type == 1) {  // Dense
        return busy ? microDenseRows(vals, sx, lane) : microCscColumns(bytes, vals, xm, sx, lane, 1);
    }
    if (type == 3) return microCscColumns(bytes, vals, xm, sx, lane, 0);  // ForceCSC
    if (type == 2 || (type == 4 && busy)) return microCsrRows(bytes, vals, xm, sx, lane);
    return microScatter(bytes, vals, nnz, type, xm, sx, srow, lane);  // COO, sparse CSR
}
// end snippet

// --- Lane blocks and prefetch ---------------------------------------------

// snippet: red-add
// Push adds into y and never reads it back, so an add need not wait for an
// answer. atomicAdd whose result is unused normally compiles to a
// fire-and-forget reduction (REDG in the SASS), and in a kernel holding
// push alone it did. In dbAuto the very same line compiled to the returning
// form (ATOMG, its answer thrown away): the compiler's choice, made per
// kernel, and not one the source can see. PTX's red instruction says what
// push means, whatever else the kernel holds; "DB auto, atomicAdd" keeps
// the old form to show the cost. No "memory" clobber: nothing in a push
// reads y, so loads may move across these adds; the kernel's end orders
// them for the next kernel.
__device__ inline void addToGlobal(float* p, float v) {
    asm volatile("red.global.add.f32 [%0], %1;" ::"l"(__cvta_generic_to_global(p)), "f"(v));
}

// How a lane adds a product into out: into a warp's row sums in shared
// memory (pull), or into y with red (push) or with atomicAdd (the ablation).
// The mode is a literal or a template argument at every call, so each
// inlined copy keeps one branch.
static const int kAddShared = 0;
static const int kAddRed = 1;
static const int kAddAtomic = 2;

__device__ inline void addInto(float* out, float v, int mode) {
    if (mode == kAddRed) {
        addToGlobal(out, v);
    } else {
        atomicAdd(out, v);
    }
}
// end snippet

// snippet: lane-block
// One lane walks one light block (see laneBlock and laneTask) and adds each
// product into out[row], out being the warp's 16 shared row sums (pull) or
// y's 16 rows of the block (push). Only entries whose x bit is set are
// touched; COO reads its index bytes a word (four entries) at a time. x is
// read straight from global memory: this lane is the only one that needs
// those values.
__device__ void laneBlockScatter(const unsigned* __restrict__ payload, int4 d, unsigned xm,
                                 const float* __restrict__ x, float* out, int addMode) {
    const int type = d.w >> 16, nnz = d.w & 0xffff;
    const unsigned* words = payload + d.z;
    const float* vals = (const float*)(words + indexWords(type, nnz));
    const float* xb = x + (long long)d.y * kBlockDim;  // a set bit means a real column
    if (type == 0) {  // COO: byte k is row << 4 | col of entry k
        unsigned w = 0u;
        for (int k = 0; k < nnz; ++k) {
            if ((k & 3) == 0) w = words[k >> 2];
            const unsigned rc = (w >> (8 * (k & 3))) & 0xffu;
            const int c = rc & 15;
            if ((xm >> c) & 1u) addInto(&out[rc >> 4], vals[k] * xb[c], addMode);
        }
    } else {  // patched CSR: only the active columns, through the column map
        const unsigned char* bytes = (const unsigned char*)words;
        unsigned active = xm;
        while (active != 0u) {
            const int c = __ffs(active) - 1;
            const int begin = bytes[48 + c];
            const int end = c == kBlockDim - 1 ? nnz : bytes[48 + c + 1];
            const float xc = xb[c];
            for (int k = begin; k < end; ++k) {
                const int e = bytes[64 + k], r = e >> 4;
                addInto(&out[r], vals[bytes[r] + (e & 15)] * xc, addMode);
            }
            active &= active - 1u;
        }
    }
}
// end snippet

// Asks for the block's payload, one 128-byte line per lane, so that the warp
// that walks it next finds it in L1 instead of waiting on memory. A prefetch
// changes no value; only lines inside the block are named.
__device__ void prefetchBlock(const unsigned* payload, int4 d, int lane) {
    const int type = d.w >> 16, nnz = d.w & 0xffff;
    const int words = indexWords(type, nnz) + valueCount(type, nnz);
    const int offset = lane * 32;  // 32 words = one 128-byte line
    if (offset < words) {
        asm volatile("prefetch.L1 [%0];" ::"l"(payload + d.z + offset));  // generic address
    }
}

// Broadcasts lane src's descriptor to the warp. Every lane must call it.
__device__ int4 shflInt4(int4 d, int src) {
    int4 r;
    r.x = __shfl_sync(kFullMask, d.x, src);
    r.y = __shfl_sync(kFullMask, d.y, src);
    r.z = __shfl_sync(kFullMask, d.z, src);
    r.w = __shfl_sync(kFullMask, d.w, src);
    return r;
}

// x entry `lane` of x block cb for lanes 0..15 (0 past the last column).
__device__ float xLane(const float* __restrict__ x, int cols, int cb, int lane) {
    const long long e = (long long)cb * kBlockDim + lane;
    return lane < kBlockDim && e < cols ? x[e] : 0.0f;
}

// The heavy-block pipeline of pull and push: takes the lowest lane left in
// the warp's ballot of heavy blocks, broadcasts its descriptor and x mask,
// and starts the loads the warp will need for it (its 16 x values, its
// payload into L1), so they are in flight while the warp works on the block
// before. An empty ballot leaves a zero mask, which ends the caller's loop.
// Every lane must call it with the same *heavy.
typedef struct {
    int4 d;
    unsigned xm;
    float xv;
} HeavyNext;

__device__ HeavyNext takeHeavy(unsigned* heavy, int4 d, unsigned xm, const float* __restrict__ x, int cols,
                               const unsigned* payload, int lane) {
    HeavyNext h;
    h.d = make_int4(0, 0, 0, 0);
    h.xm = 0u;
    h.xv = 0.0f;
    if (*heavy != 0u) {  // warp uniform
        const int src = __ffs(*heavy) - 1;
        *heavy &= *heavy - 1u;
        h.d = shflInt4(d, src);
        h.xm = __shfl_sync(kFullMask, xm, src);
        h.xv = xLane(x, cols, h.d.y, lane);
        prefetchBlock(payload, h.d, lane);
    }
    return h;
}

// --- Pull and push ----------------------------------------------------------

// snippet: pull-kernel
// Pull: one thread block per segment of a row block (grid-stride, so a grid
// sized to the GPU serves any segment count and exits cheaply when auto chose
// push). A warp takes 32 of the segment's blocks per pass (lane i the i-th
// of every 4th block, so the four warps share the heavy ones): one coalesced
// descriptor read and one x-mask read per lane tell every block's fate at
// once. Light blocks are walked by their own lane into the warp's shared row
// sums; a ballot lists the heavy ones, which the warp walks one after another
// with the microkernels, fetching the next one's x and payload while it
// works on the current one. Blocks whose x block is empty cost only those
// two reads. Writeback is hierarchical: warp sums -> shared memory across
// the 4 warps -> y once. A row block cut into several segments parks each
// segment's 16 sums in scratch; the last segment to arrive adds them in a
// fixed order and writes y, so y is written once per row and never zeroed.
// Launch (through dbPull or dbAuto): kPullThreads threads; any gridDim.x >= 1.
__device__ void pullBody(const DbView& v, const float* __restrict__ x, const unsigned short* __restrict__ xmask,
                         float* __restrict__ y) {
    __shared__ float sx[kPullWarps][16];
    __shared__ float srow[kPullWarps][16];
    __shared__ float slane[kPullWarps][16];
    __shared__ float spart[kPullWarps][16];
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    if (lane < kBlockDim) {
        srow[warp][lane] = 0.0f;
        slane[warp][lane] = 0.0f;
    }
    __syncwarp();
    for (int s = blockIdx.x; s < v.segmentCount; s += gridDim.x) {
        const int4 seg = v.segments[s];
        float acc = 0.0f;  // the heavy blocks' row sums, lane = row
        for (int base = seg.y + warp; base < seg.z; base += kPullWarps * kWarpSize) {  // warp uniform
            const int b = base + lane * kPullWarps;
            int4 d = make_int4(0, 0, 0, 0);
            unsigned xm = 0u;
            if (b < seg.z) {
                d = v.desc[b];
                xm = xmask[d.y];
            }
            const int light = laneBlock(d.w);
            unsigned heavy = __ballot_sync(kFullMask, xm != 0u && !light);
            // Start the first heavy block's loads before the lane work.
            HeavyNext h = takeHeavy(&heavy, d, xm, x, v.cols, v.payload, lane);
            if (xm != 0u && light) laneBlockScatter(v.payload, d, xm, x, slane[warp], kAddShared);
            while (h.xm != 0u) {  // warp uniform: a heavy block's mask is never 0
                const HeavyNext n = takeHeavy(&heavy, d, xm, x, v.cols, v.payload, lane);
                if (lane < kBlockDim) sx[warp][lane] = h.xv;
                __syncwarp();
                acc += blockRowSums(v.payload, h.d, h.xm, sx[warp], srow[warp], lane);
                __syncwarp();
                h = n;
            }
        }
        __syncwarp();  // every lane's shared adds are in slane
        if (lane < kBlockDim) {
            spart[warp][lane] = acc + slane[warp][lane];
            slane[warp][lane] = 0.0f;  // the __syncthreads below orders it before new adds
        }
        __syncthreads();
        if (warp == 0) {
            const int rb = seg.x;
            const int firstSeg = v.rowSegPtr[rb], segs = v.rowSegPtr[rb + 1] - firstSeg;
            const long long row = (long long)rb * kBlockDim + lane;
            float total = 0.0f;
            if (lane < kBlockDim) total = spart[0][lane] + spart[1][lane] + spart[2][lane] + spart[3][lane];
            if (segs == 1) {
                if (lane < kBlockDim && row < v.rows) y[row] = total;
            } else {
                if (lane < kBlockDim) v.scratch[(long long)s * kBlockDim + lane] = total;
                __threadfence();  // publish the partials before the arrival
                __syncwarp();
                int last = 0;
                if (lane == 0) last = atomicAdd(&v.rowCounter[rb], 1) == segs - 1;
                last = __shfl_sync(kFullMask, last, 0);
                if (last) {
                    __threadfence();
                    float sum = 0.0f;
                    for (int k = firstSeg; k < firstSeg + segs && lane < kBlockDim; ++k) {
                        sum += __ldcg(&v.scratch[(long long)k * kBlockDim + lane]);
                    }
                    if (lane < kBlockDim && row < v.rows) y[row] = sum;
                    if (lane == 0) v.rowCounter[rb] = 0;  // ready for the next call
                }
            }
        }
        __syncthreads();  // spart is reused by the next segment
    }
}
// end snippet

// Pull alone (DB pull-only, the layout ablation), and the two-kernel auto's
// pull, which returns at once when the work rule chose push.
// Launch: kPullThreads threads; any gridDim.x >= 1; with PDL or without.
__global__ void __launch_bounds__(kPullThreads, kPullCtasPerSm)
dbPull(DbView v, const float* __restrict__ x, const unsigned short* __restrict__ xmask,
       const unsigned long long* counter, int onlyIfChosen, float* __restrict__ y) {
    cudaGridDependencySynchronize();  // with PDL, the metadata step's results are in after this
    if (onlyIfChosen && choosePushByWork((long long)(*counter & 0xffffffffull), v.blocks, v.lightMatrix)) return;
    pullBody(v, x, xmask, y);
}

// snippet: owner-search
// The list entry that owns task t: the last entry whose offset is <= t (the
// offsets never fall). A 32-way search: at each step every lane probes one
// of 32 evenly spaced entries and a ballot keeps the last probe that is
// still <= t, so the range shrinks 32-fold a step, not 2-fold: 3 dependent
// loads for 32768 entries instead of 15. Entry 0 has offset 0, so the
// answer always exists. __ldcg because DB-BFS writes the list in the same
// kernel (L1 is not coherent across SMs). Every lane must call it with the
// same arguments; all get the same answer.
__device__ int ownerOfTask(const int2* list, int count, long long t, int lane) {
    int lo = 0, hi = count - 1;  // the answer is in [lo, hi]; list[lo] <= t
    while (lo < hi) {            // warp uniform
        const int step = (hi - lo + kWarpSize) / kWarpSize;  // ceil((hi - lo + 1) / 32)
        const int probe = lo + lane * step;
        const int fits = probe <= hi && __ldcg(&list[probe].y) <= t;
        const int last = kWarpSize - 1 - __clz(__ballot_sync(kFullMask, fits));  // lane 0 always fits
        lo += last * step;
        if (lo + step - 1 < hi) hi = lo + step - 1;
    }
    return lo;
}

// After ownerOfTask has found the first task's entry, a warp reads the 32
// entries from there, one a lane (offset: this lane's entry's). Each lane
// then finds the owner of its own task t among them: the last entry whose
// offset is <= t, by a 5-step search over shuffles, with no memory access.
// Entry 0's offset must be <= every lane's t; a lane whose owner lies past
// the window gets 31. Every lane must call it.
__device__ int windowOwner(int offset, long long t) {
    int pos = 0;
    for (int step = kWarpSize / 2; step > 0; step >>= 1) {
        if (__shfl_sync(kFullMask, offset, pos + step) <= t) pos += step;
    }
    return pos;
}
// end snippet

// snippet: push-pass
// Push, one pass of a warp: every lane holds one task (a matrix block of an
// active column block: its descriptor d, and xm, the columns x reaches in
// it) or none (xm 0). A lane task (laneTask) is walked by its lane, one add
// into y per product; the heavy ones are listed by a ballot and walked by
// the whole warp, which reduces each to 16 row sums and makes at most 16
// adds. Every lane must call it.
__device__ void pushPass(const DbView& v, const float* __restrict__ x, int4 d, unsigned xm, float* __restrict__ y,
                         float* sx, float* srow, int lane, int addMode) {
    const int light = laneTask(d.w, xm);
    unsigned heavy = __ballot_sync(kFullMask, xm != 0u && !light);
    HeavyNext h = takeHeavy(&heavy, d, xm, x, v.cols, v.payload, lane);
    if (xm != 0u && light) laneBlockScatter(v.payload, d, xm, x, y + (long long)d.x * kBlockDim, addMode);
    while (h.xm != 0u) {  // warp uniform
        const HeavyNext n = takeHeavy(&heavy, d, xm, x, v.cols, v.payload, lane);
        if (lane < kBlockDim) sx[lane] = h.xv;
        __syncwarp();
        const float sum = blockRowSums(v.payload, h.d, h.xm, sx, srow, lane);
        const long long row = (long long)h.d.x * kBlockDim + lane;
        if (lane < kBlockDim && row < v.rows && sum != 0.0f) addInto(&y[row], sum, addMode);
        __syncwarp();
        h = n;
    }
}

// A task's descriptor and reach, from its CSC position p: the view's column
// mask of the block, ANDed with x's, drops the tasks x does not reach before
// their descriptor is read; through csc2csr the others reach their block in
// the shared payload. Both reads at once: waiting for the mask before asking
// for the block's place would add a memory round trip to every task.
__device__ inline int4 pushTask(const DbView& v, int p, unsigned* xm) {
    const int primary = v.csc2csr[p];
    *xm &= v.cscColMask[p];
    return *xm != 0u ? v.desc[primary] : make_int4(0, 0, 0, 0);
}
// end snippet

// snippet: column-walk
// The column walk, an ablation of push's schedule for matrices whose column
// blocks hold at most 32 blocks (v.columnGroup > 0, fixed with the matrix):
// a group of columnGroup lanes takes one active column block, lane i of the
// group its i-th block, so a warp serves 32 / columnGroup column blocks a
// pass and no task number is searched for. From the list entry to the
// descriptor that is four dependent reads; pushBody's first pass adds the
// search's (three at a few thousand entries). It loses all the same at
// densities of 0.01 and 0.001, and on banded at 0.0001 (the transcript's
// "DB push, column walk"): the tasks of a column block all land in one
// warp, so fewer warps hold work and each walks more heavy blocks one after
// another. It draws level, or gains a little, where that does not bite: at
// 0.1, where every warp has several passes either way, and on fe-mesh at
// 0.0001, where the tasks are few and nearly all lane tasks. Push at these
// sizes waits on memory; what the times say is that the number of warps
// waiting at once counts for more than the length of one warp's chain.
// Launch (through dbPushColumns): kPushThreads threads; any gridDim.x >= 1.
__device__ void pushColumnsBody(const DbView& v, const float* __restrict__ x,
                                const unsigned short* __restrict__ xmask, const int2* __restrict__ activeList,
                                int active, float* __restrict__ y) {
    __shared__ float sx[kPushWarps][16];
    __shared__ float srow[kPushWarps][16];
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    if (lane < kBlockDim) srow[warp][lane] = 0.0f;
    __syncwarp();
    const int group = v.columnGroup, columnsPerPass = kWarpSize / group;
    const int stride = gridDim.x * kPushWarps * columnsPerPass;
    for (int k0 = (blockIdx.x * kPushWarps + warp) * columnsPerPass; k0 < active; k0 += stride) {  // warp uniform
        const int k = k0 + lane / group;
        int4 d = make_int4(0, 0, 0, 0);
        unsigned xm = 0u;
        if (k < active) {
            const int cb = activeList[k].x;
            const int p = v.blockColPtr[cb] + lane % group;
            if (p < v.blockColPtr[cb + 1]) {
                xm = xmask[cb];
                d = pushTask(v, p, &xm);
            }
        }
        pushPass(v, x, d, xm, y, sx[warp], srow[warp], lane, kAddRed);
    }
}
// end snippet

// snippet: push-kernel
// Push: the tasks are (active column block, matrix block) pairs, numbered
// through the offsets the metadata step handed out. Each warp owns one
// contiguous range of tasks and takes them 32 at a time, lane i task i. Which
// column block a task belongs to is found once per warp (ownerOfTask);
// after that the warp reads the 32 list entries from where the previous pass
// ended and each lane finds its own among them (windowOwner; a list entry
// can own no task when its column block is empty, so a lane that runs off
// the 32 falls back to a search of its own).
// How long a range? A warp pays for its search and its window whatever its
// tasks, and then waits on memory for the tasks of each pass. On a heavy
// matrix a task walks a payload, so the shortest ranges win: every warp of
// the GPU gets tasks, even when that leaves lanes idle, and more warps wait
// at once. On a light matrix most tasks end at the column-mask test (x
// reaches another column of the block), so the searches would cost more than
// the tasks; there a range is whole passes of 32 (v.fullPasses, fixed with
// the matrix). "DB push, other ranges" runs each matrix with the other rule.
// Launch (through dbPush or dbAuto): kPushThreads threads; any gridDim.x >= 1.
__device__ void pushBody(const DbView& v, const float* __restrict__ x, const unsigned short* __restrict__ xmask,
                         const int2* __restrict__ activeList, int active, int tasks, float* __restrict__ y,
                         int addMode) {
    __shared__ float sx[kPushWarps][16];
    __shared__ float srow[kPushWarps][16];
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    if (lane < kBlockDim) srow[warp][lane] = 0.0f;
    __syncwarp();
    const int warps = gridDim.x * kPushWarps;
    int perWarp = (tasks + warps - 1) / warps;
    if (v.fullPasses) perWarp = (perWarp + kWarpSize - 1) / kWarpSize * kWarpSize;
    const long long firstLong = (long long)(blockIdx.x * kPushWarps + warp) * perWarp;
    if (firstLong >= tasks) return;  // warp uniform; no block-wide barrier follows
    const int first = (int)firstLong;
    const int end = first + perWarp < tasks ? first + perWarp : tasks;
    int base = ownerOfTask(activeList, active, first, lane);
    for (int t0 = first; t0 < end; t0 += kWarpSize) {  // warp uniform
        const int t = t0 + lane;
        // The window: list entries base .. base+31, each with its column
        // block's first CSC position and x mask; past the list, an offset no
        // task reaches.
        const int wk = base + lane;
        int2 we = make_int2(0, 0x7fffffff);
        int wStart = 0;
        unsigned wxm = 0u;
        if (wk < active) {
            we = activeList[wk];
            wStart = v.blockColPtr[we.x];
            wxm = xmask[we.x];
        }
        const int pos = windowOwner(we.y, t);  // entry 0's offset is <= t0
        int k = base + pos;
        int offset = __shfl_sync(kFullMask, we.y, pos);
        int colStart = __shfl_sync(kFullMask, wStart, pos);
        unsigned xm = __shfl_sync(kFullMask, wxm, pos);
        const int mine = t < end;
        if (mine && pos == kWarpSize - 1 && k + 1 < active && activeList[k + 1].y <= t) {
            int lo = k + 1, top = active - 1;  // beyond the window: search on
            while (lo < top) {
                const int mid = (lo + top + 1) >> 1;
                if (activeList[mid].y <= t) lo = mid; else top = mid - 1;
            }
            k = lo;
            const int2 e = activeList[k];
            offset = e.y;
            colStart = v.blockColPtr[e.x];
            xm = xmask[e.x];
        }
        int4 d = make_int4(0, 0, 0, 0);
        if (mine) d = pushTask(v, colStart + (t - offset), &xm); else xm = 0u;
        base = __shfl_sync(kFullMask, k, kWarpSize - 1);  // the next pass starts there
        pushPass(v, x, d, xm, y, sx[warp], srow[warp], lane, addMode);
    }
}
// end snippet

// Push alone (DB push-only), and the two-kernel auto's push, which returns
// at once when the work rule chose pull. y must be zero: the metadata step zeroes it.
// Launch: kPushThreads threads; any gridDim.x >= 1; with PDL or without.
__global__ void __launch_bounds__(kPushThreads, kPushCtasPerSm)
dbPush(DbView v, const float* __restrict__ x, const unsigned short* __restrict__ xmask,
       const int2* __restrict__ activeList, const unsigned long long* counter, int onlyIfChosen,
       float* __restrict__ y) {
    cudaGridDependencySynchronize();  // with PDL, the kernels before it are done after this
    const unsigned long long c = *counter;
    const int active = (int)(c >> 32), tasks = (int)(c & 0xffffffffull);
    if (onlyIfChosen && !choosePushByWork(tasks, v.blocks, v.lightMatrix)) return;
    pushBody(v, x, xmask, activeList, active, tasks, y, kAddRed);
}

// The column walk's kernel (the ablation "DB push, column walk"); the host
// launches it only on a matrix with columnGroup > 0. y must be zero.
// Launch: kPushThreads threads; any gridDim.x >= 1; with PDL or without.
__global__ void __launch_bounds__(kPushThreads, kPushCtasPerSm)
dbPushColumns(DbView v, const float* __restrict__ x, const unsigned short* __restrict__ xmask,
              const int2* __restrict__ activeList, const unsigned long long* counter, float* __restrict__ y) {
    cudaGridDependencySynchronize();  // with PDL, the kernels before it are done after this
    pushColumnsBody(v, x, xmask, activeList, (int)(*counter >> 32), y);
}

// snippet: auto-kernel
// DB auto in one kernel: every thread block reads the counter the metadata
// step left, applies the work rule, and runs push or pull. The choice is
// uniform over the grid (one counter, one rule), so the two bodies never
// meet, and both fit one launch shape (kPullThreads = kPushThreads). One
// kernel after the metadata step, not two: at low density a second kernel in
// the chain is a large share of the call ("two kernels" measures it).
// Holding both bodies changes how the compiler treats push: 40 registers
// for the two at once (dbAuto spills 12 bytes where dbPush spills none) and,
// the part that cost time, push's adds compiled as returning atomics unless
// they are written as red (see addToGlobal). kAddMode picks the form:
// kAddRed for DB auto, kAddAtomic for the ablation that shows the cost.
// Launch: kPullThreads threads; any gridDim.x >= 1 (a full-GPU grid: push
// wants every warp; pull's extra blocks find no segment and leave); with
// PDL or without.
template <int kAddMode>
__global__ void __launch_bounds__(kPullThreads, kPullCtasPerSm)
dbAuto(DbView v, const float* __restrict__ x, const unsigned short* __restrict__ xmask,
       const int2* __restrict__ activeList, const unsigned long long* counter, float* __restrict__ y) {
    cudaGridDependencySynchronize();  // with PDL, the metadata step's results are in after this
    const unsigned long long c = *counter;
    const int active = (int)(c >> 32), tasks = (int)(c & 0xffffffffull);
    if (choosePushByWork(tasks, v.blocks, v.lightMatrix)) {
        pushBody(v, x, xmask, activeList, active, tasks, y, kAddMode);
    } else {
        pullBody(v, x, xmask, y);
    }
}
// end snippet

// --- Plain baselines --------------------------------------------------------

// The pull everybody writes first: one warp per row over plain CSR, every
// stored entry read whether its x is zero or not.
// Launch: kPlainThreads threads; gridDim.x * kPlainThreads / 32 >= rows.
__global__ void __launch_bounds__(kPlainThreads)
plainCsrPull(int rows, const int* __restrict__ rowPtr, const int* __restrict__ colIdx,
             const float* __restrict__ val, const float* __restrict__ x, float* __restrict__ y) {
    const long long w = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize;
    const int lane = threadIdx.x % kWarpSize;
    if (w >= rows) return;  // warp uniform
    float sum = 0.0f;
    for (int k = rowPtr[w] + lane; k < rowPtr[w + 1]; k += kWarpSize) sum += val[k] * x[colIdx[k]];
    for (int o = kWarpSize / 2; o > 0; o >>= 1) sum += __shfl_down_sync(kFullMask, sum, o);
    if (lane == 0) y[w] = sum;
}

// The plain push: a warp looks at 32 entries of x; for each nonzero one it
// walks that column of the CSC with all 32 lanes and adds into y atomically.
// Launch: kPlainThreads threads; gridDim.x * kPlainThreads >= cols (rounded up to 32).
__global__ void __launch_bounds__(kPlainThreads)
plainCscPush(int cols, const int* __restrict__ colPtr, const int* __restrict__ rowIdx,
             const float* __restrict__ val, const float* __restrict__ x, float* __restrict__ y) {
    const long long j0 = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / kWarpSize * kWarpSize;
    const int lane = threadIdx.x % kWarpSize;
    if (j0 >= cols) return;  // warp uniform
    const float xv = j0 + lane < cols ? x[j0 + lane] : 0.0f;
    unsigned bits = __ballot_sync(kFullMask, xv != 0.0f);
    while (bits != 0u) {
        const int b = __ffs(bits) - 1;
        bits &= bits - 1u;
        const float xj = __shfl_sync(kFullMask, xv, b);
        const long long j = j0 + b;
        for (int k = colPtr[j] + lane; k < colPtr[j + 1]; k += kWarpSize) {
            atomicAdd(&y[rowIdx[k]], val[k] * xj);
        }
    }
}

// --- DB-BFS: Boolean SpMSpV over the same format --------------------------

// Everything a BFS kernel reads and writes, passed by value. Frontier and
// visited sets are one 16-bit mask per 16-vertex block; next collects the
// level's discoveries as 32-bit words so push can OR into them atomically.
typedef struct {
    int n, vblocks, blocks, maxLevels;
    long long pushWave;       // tasks push takes in one pass, for the level rule
    const int4* desc;
    const unsigned* payload;
    const int* blockRowPtr;
    const int* blockColPtr;
    const int* csc2csr;
    const int4* pullSegments; // row block, first block, end block, 0
    int pullSegmentCount;
    const unsigned short* cscColMask;   // per CSC position: the block's columns
    const unsigned short* unreachable;  // per vertex block: no edges, or past n
    unsigned baseOpen;        // open blocks when only the unreachable are visited
    const int* rowPtr;        // plain CSR, for the day-38-style search
    const int* colIdx;
    int* dist;
    unsigned short* frontier;
    unsigned short* visited;
    unsigned* next;
    int2* activeList;         // the frontier's nonzero blocks, with task offsets
    unsigned long long* levelCounter;  // per level: nonzero blocks << 32 | push tasks
    unsigned* levelVertices;  // per level: frontier vertices
    unsigned* levelOpen;      // per level: blocks of the row blocks still open
    int* levelPath;           // per level: 1 push, 0 pull (DB) ; unused by day 38
    int* queue;               // day 38: the frontiers, level after level
} BfsView;

// snippet: level-path-choice
// The level's path, from counts the level close makes anyway: tasks (matrix
// blocks in the frontier's nonzero column blocks: push's work) and open
// blocks (matrix blocks of the row blocks not yet fully visited: pull's).
// Push while the tasks fit in one pass of the GPU (wave: kBfsPushWave, or
// the --small grid's lanes) or are fewer than kBfsPushShare = 0.1 of the
// open blocks; otherwise pull. The same expression on host and device, so
// the host can predict every level's path and the judge can hold the GPU to
// it. It is Beamer's rule (printed beside it) in blocks: his frontier edges
// against unexplored edges become tasks against open blocks, which the
// block masks give for free.
__host__ __device__ inline int chooseBfsPush(long long tasks, long long openBlocks, long long wave) {
    return tasks < wave || (double)tasks < 0.1 * (double)openBlocks;
}
// end snippet

// snippet: bool-block
// The Boolean microkernel: which of block d's 16 rows have a neighbour among
// the frontier columns fm. No values, no multiply-adds: a block is at most
// 16 masks (32 bytes), so ONE lane does a whole block, and the layout only
// decides which masks it reads. Row masks (Dense at byte 0, ForceCSR and
// patched CSR at byte 16): row r is reached when its mask meets fm. Column
// masks (ForceCSC): OR the masks of the frontier's columns. COO: one byte
// per entry.
__device__ unsigned reachRows(const unsigned* __restrict__ payload, int4 d, unsigned fm) {
    const int type = d.w >> 16, nnz = d.w & 0xffff;
    const unsigned* words = payload + d.z;
    unsigned reach = 0u;
    if (type == kTypeCoo) {
        unsigned w = 0u;
        for (int k = 0; k < nnz; ++k) {
            if ((k & 3) == 0) w = words[k >> 2];
            const unsigned rc = (w >> (8 * (k & 3))) & 0xffu;
            reach |= ((fm >> (rc & 15u)) & 1u) << (rc >> 4);
        }
    } else if (type == kTypeForceCsc) {
        const unsigned short* colMask = (const unsigned short*)(words + 4);
        for (unsigned active = fm; active != 0u; active &= active - 1u) reach |= colMask[__ffs(active) - 1];
    } else {  // Dense, ForceCSR, patched CSR: 16 row masks, two to a word
        const unsigned* rowMasks = words + (type == kTypeDense ? 0 : 4);
#pragma unroll
        for (int i = 0; i < kBlockDim / 2; ++i) {
            const unsigned two = rowMasks[i];
            reach |= (unsigned)((two & 0xffffu & fm) != 0u) << (2 * i);
            reach |= (unsigned)(((two >> 16) & fm) != 0u) << (2 * i + 1);
        }
    }
    return reach;
}
// end snippet

// snippet: bool-push
// Boolean push: one lane per task (frontier column block, matrix block), a
// warp taking 32 consecutive tasks at a time, grid-stride. The warp finds
// the first task's column block in the frontier's block list (ownerOfTask)
// and reads the 32 entries from there, one a lane; each lane finds its own
// among them (windowOwner). 32 tasks never span more than 32 entries: a
// frontier block's column holds at least one block (its vertices were
// reached through an edge; a root without edges has a frontier of one
// block and no tasks past it). The block-CSC view's
// column mask drops a block the frontier does not reach before its
// descriptor is read; csc2csr leads to the others, whose reached rows minus
// the visited ones are ORed into next. The plain read first skips the
// atomic when those bits are already set.
__device__ void boolPush(const BfsView& g, int active, long long tasks, long long warp, long long warps, int lane) {
    for (long long t0 = warp * kWarpSize; t0 < tasks; t0 += warps * kWarpSize) {  // warp uniform
        const int first = ownerOfTask(g.activeList, active, t0, lane);
        const long long t = t0 + lane;
        int2 w = make_int2(0, 0x7fffffff);  // past the list: an offset no task reaches
        if (first + lane < active) w = __ldcg(&g.activeList[first + lane]);
        const int pos = windowOwner(w.y, t);  // entry 0's offset is <= t0
        const int2 e = make_int2(__shfl_sync(kFullMask, w.x, pos), __shfl_sync(kFullMask, w.y, pos));
        if (t >= tasks) continue;
        const int p = g.blockColPtr[e.x] + (int)(t - e.y);
        const unsigned fm = __ldcg(&g.frontier[e.x]) & g.cscColMask[p];
        if (fm == 0u) continue;  // no frontier column in this block: skip its descriptor
        const int4 d = g.desc[g.csc2csr[p]];
        const unsigned reach = reachRows(g.payload, d, fm) & ~(unsigned)__ldcg(&g.visited[d.x]) & 0xffffu;
        if (reach != 0u && (reach & ~__ldcg(&g.next[d.x])) != 0u) atomicOr(&g.next[d.x], reach);
    }
}
// end snippet

// snippet: bool-pull
// Boolean pull: one warp per segment of a row block (at most
// kBfsPullSegmentBlocks blocks), grid-stride. A segment whose row block has
// every row visited or already found costs two loads. Otherwise the lanes
// take 32 of its blocks at a time (one coalesced descriptor read, one
// frontier-mask read each), a block whose frontier mask is empty costs
// nothing more, and the warp ORs the reached rows together. New rows go
// into next with one atomicOr, whose answer also brings in what the row
// block's other segments have found; the segment stops as soon as every
// unvisited row is found: Beamer's early exit of the bottom-up step, 16 rows
// at a time, shared across the segments of a hub's row block.
__device__ void boolPull(const BfsView& g, long long warp, long long warps, int lane) {
    for (long long s = warp; s < g.pullSegmentCount; s += warps) {  // warp uniform
        const int4 seg = g.pullSegments[s];
        unsigned done = (__ldcg(&g.visited[seg.x]) | __ldcg(&g.next[seg.x])) & 0xffffu;
        for (int b0 = seg.y; b0 < seg.z && done != 0xffffu; b0 += kWarpSize) {  // warp uniform
            unsigned mine = 0u;
            if (b0 + lane < seg.z) {
                const int4 d = g.desc[b0 + lane];
                const unsigned fm = __ldcg(&g.frontier[d.y]);
                if (fm != 0u) mine = reachRows(g.payload, d, fm);
            }
            const unsigned fresh = __reduce_or_sync(kFullMask, mine) & ~done & 0xffffu;
            if (fresh != 0u) {  // warp uniform
                unsigned before = 0u;
                if (lane == 0) before = atomicOr(&g.next[seg.x], fresh);
                done |= fresh | (__shfl_sync(kFullMask, before, 0) & 0xffffu);
            }
        }
    }
}
// end snippet

// Closes a level: the discoveries in next become the new frontier and join
// visited, their vertices get level `level` in dist, the blocks of the row
// blocks still open are counted (pull's work, for the rule), and the frontier's
// nonzero blocks are listed with their push-task offsets, counted with one
// 64-bit atomic per thread block of 256 vertex blocks (the high half counts
// blocks, the low half tasks, so list positions and offsets rise together,
// as in part 1's metadata step). Every thread of the block must call it: the
// chunk loop is block uniform and holds __syncthreads.
__device__ void closeLevel(const BfsView& g, int level) {
    __shared__ unsigned long long sWarp[kBfsWarps];
    __shared__ unsigned long long sBase;
    __shared__ unsigned sVertices;
    __shared__ unsigned sOpen;
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    for (long long base = (long long)blockIdx.x * kBfsThreads; base < g.vblocks;
         base += (long long)gridDim.x * kBfsThreads) {  // block uniform
        const long long cb = base + threadIdx.x;
        unsigned found = 0u, open = 0u;
        unsigned long long mine = 0ull;  // 1 << 32 | tasks for a nonzero block
        if (cb < g.vblocks) {
            found = __ldcg(&g.next[cb]) & 0xffffu;
            const unsigned seen = __ldcg(&g.visited[cb]) | found;
            if (seen != 0xffffu) open = (unsigned)(g.blockRowPtr[cb + 1] - g.blockRowPtr[cb]);
            if (found != 0u) {
                g.next[cb] = 0u;
                g.visited[cb] = (unsigned short)seen;
                for (unsigned m = found; m != 0u; m &= m - 1u) g.dist[cb * kBlockDim + __ffs(m) - 1] = level;
                mine = (1ull << 32) | (unsigned)(g.blockColPtr[cb + 1] - g.blockColPtr[cb]);
            }
            g.frontier[cb] = (unsigned short)found;
        }
        unsigned long long incl = mine;
        for (int o = 1; o < kWarpSize; o <<= 1) {
            const unsigned long long up = __shfl_up_sync(kFullMask, incl, o);
            if (lane >= o) incl += up;
        }
        const unsigned vertices = __reduce_add_sync(kFullMask, (unsigned)__popc(found));
        const unsigned openWarp = __reduce_add_sync(kFullMask, open);
        if (threadIdx.x == 0) {
            sVertices = 0u;
            sOpen = 0u;
        }
        if (lane == kWarpSize - 1) sWarp[warp] = incl;
        __syncthreads();
        if (lane == 0 && vertices != 0u) atomicAdd(&sVertices, vertices);
        if (lane == 0 && openWarp != 0u) atomicAdd(&sOpen, openWarp);
        if (threadIdx.x == 0) {
            unsigned long long total = 0ull;
            for (int w = 0; w < kBfsWarps; ++w) total += sWarp[w];
            sBase = total != 0ull ? atomicAdd(&g.levelCounter[level], total) : 0ull;
        }
        __syncthreads();
        if (mine != 0ull) {
            unsigned long long before = sBase + incl - mine;
            for (int w = 0; w < warp; ++w) before += sWarp[w];
            g.activeList[before >> 32] = make_int2((int)cb, (int)(before & 0xffffffffull));
        }
        if (threadIdx.x == 0 && sVertices != 0u) atomicAdd(&g.levelVertices[level], sVertices);
        if (threadIdx.x == 0 && sOpen != 0u) atomicAdd(&g.levelOpen[level], sOpen);
        __syncthreads();  // sWarp, sBase, sVertices and sOpen are reused by the next chunk
    }
}

__device__ unsigned long long globalNanoseconds() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

// The whole DB-BFS in one cooperative grid, as day 38's grid loop keeps its
// level loop on the GPU: per level one expansion (push or pull, chosen on
// the device from the counter the last close wrote, so no copy to the host)
// and one close, each ended by grid.sync(). mode forces push or pull for the
// single-path variants. State written inside the kernel is read with __ldcg:
// L1 is not coherent across SMs, the barrier orders only L2.
// Launch: cudaLaunchCooperativeKernel, blockDim.x = kBfsThreads, gridDim.x
// <= co-resident blocks; clock NULL or maxLevels + 1 stamps.
__global__ void __launch_bounds__(kBfsThreads)
dbBfsLoop(BfsView g, int source, int mode, unsigned long long* clock) {
    cg::grid_group grid = cg::this_grid();
    const long long thread = grid.thread_rank(), threads = grid.size();
    const int lane = threadIdx.x % kWarpSize;
    const int sourceBlock = source / kBlockDim;
    for (long long cb = thread; cb < g.vblocks; cb += threads) {
        const unsigned src = cb == sourceBlock ? 1u << (source % kBlockDim) : 0u;
        g.visited[cb] = (unsigned short)(g.unreachable[cb] | src);
        g.frontier[cb] = (unsigned short)src;
        g.next[cb] = 0u;
    }
    for (long long v = thread; v < g.n; v += threads) g.dist[v] = v == source ? 0 : -1;
    for (long long l = thread + 1; l <= g.maxLevels; l += threads) {
        g.levelCounter[l] = 0ull;
        g.levelVertices[l] = 0u;
        g.levelOpen[l] = 0u;
    }
    if (thread == 0) {
        // Level 0's open blocks: those of the unreachable-only visited set,
        // less the source's row block if the source was its last open row.
        const unsigned closed = g.unreachable[sourceBlock];
        const int closes = closed != 0xffffu && (closed | 1u << (source % kBlockDim)) == 0xffffu;
        g.levelOpen[0] = g.baseOpen -
                         (closes ? (unsigned)(g.blockRowPtr[sourceBlock + 1] - g.blockRowPtr[sourceBlock]) : 0u);
        g.activeList[0] = make_int2(sourceBlock, 0);
        g.levelCounter[0] = (1ull << 32) | (unsigned)(g.blockColPtr[sourceBlock + 1] - g.blockColPtr[sourceBlock]);
        g.levelVertices[0] = 1u;
    }
    grid.sync();
    if (clock != NULL && thread == 0) clock[0] = globalNanoseconds();
    for (int level = 0; level < g.maxLevels; ++level) {
        const unsigned long long c = __ldcg(&g.levelCounter[level]);
        const int active = (int)(c >> 32);
        const long long tasks = (long long)(c & 0xffffffffull);
        if (active == 0) break;  // grid uniform: all read the same counter after the barrier
        const long long open = __ldcg(&g.levelOpen[level]);
        const int push = mode == kBfsModePush ||
                         (mode == kBfsModeAuto && chooseBfsPush(tasks, open, g.pushWave));
        if (thread == 0) g.levelPath[level] = push;
        if (push) {
            boolPush(g, active, tasks, thread / kWarpSize, threads / kWarpSize, lane);
        } else {
            boolPull(g, thread / kWarpSize, threads / kWarpSize, lane);
        }
        grid.sync();
        closeLevel(g, level + 1);
        grid.sync();
        if (clock != NULL && thread == 0) clock[level + 1] = globalNanoseconds();
    }
}

// One slot in the next frontier per calling lane: the lanes that arrive
// together take their slots with one atomicAdd between them.
__device__ unsigned appendSlot(unsigned* counter) {
    cg::coalesced_group arrived = cg::coalesced_threads();
    unsigned base = 0u;
    if (arrived.thread_rank() == 0) base = atomicAdd(counter, arrived.size());
    return arrived.shfl(base, 0) + arrived.thread_rank();
}

// snippet: warp-bfs
// The day-38-style search, written again: a queue of frontier vertices, one
// warp per vertex whose lanes stride its adjacency list, a vertex claimed by
// compare-and-swap on dist (the plain read first filters the edges into
// visited vertices) and appended to the next level's queue. The level loop
// runs in one cooperative grid with grid.sync() as the level barrier, as in
// day 38's grid loop, so both searches pay the same kind of barrier.
// Launch: cudaLaunchCooperativeKernel, blockDim.x = kBfsThreads, gridDim.x
// <= co-resident blocks; clock NULL or maxLevels + 1 stamps.
__global__ void __launch_bounds__(kBfsThreads)
warpBfsLoop(BfsView g, int source, unsigned long long* clock) {
    cg::grid_group grid = cg::this_grid();
    const long long thread = grid.thread_rank(), threads = grid.size();
    const int lane = threadIdx.x % kWarpSize;
    for (long long v = thread; v < g.n; v += threads) g.dist[v] = v == source ? 0 : -1;
    for (long long l = thread + 1; l <= g.maxLevels; l += threads) g.levelVertices[l] = 0u;
    if (thread == 0) {
        g.levelVertices[0] = 1u;
        g.queue[0] = source;
    }
    grid.sync();
    if (clock != NULL && thread == 0) clock[0] = globalNanoseconds();
    long long start = 0;
    for (int level = 0; level < g.maxLevels; ++level) {
        const unsigned size = __ldcg(&g.levelVertices[level]);
        if (size == 0u) break;  // grid uniform
        for (long long i = thread / kWarpSize; i < size; i += threads / kWarpSize) {  // warp uniform
            const int u = __ldcg(&g.queue[start + i]);
            for (int e = g.rowPtr[u] + lane; e < g.rowPtr[u + 1]; e += kWarpSize) {
                const int v = g.colIdx[e];
                if (__ldcg(&g.dist[v]) != -1 || atomicCAS(&g.dist[v], -1, level + 1) != -1) continue;
                g.queue[start + size + appendSlot(&g.levelVertices[level + 1])] = v;
            }
        }
        grid.sync();
        if (clock != NULL && thread == 0) clock[level + 1] = globalNanoseconds();
        start += size;
    }
}
// end snippet

// ---------------------------------------------------------------------------
// Device state, timing function, launchers
// ---------------------------------------------------------------------------

typedef struct {
    int* desc;
    unsigned* payload;
    int* blockColPtr;
    int* cscRowIdx;
    int* csc2csr;
    unsigned short* cscColMask;
    int* segments;
    int* rowSegPtr;
    float* scratch;
    int* rowCounter;
    DbView view;
} DbGpu;

typedef struct {
    int sms;
    int small;                // --small: kSmallGridCtas thread blocks for dbPull / dbPush
    int ctasPerSm;            // blocks per SM of dbPull, dbPush and dbAuto: the least any of them fits
    int rows, cols, rowBlocks, colBlocks, nnz;
    int yAllocated;           // floats in y, canary included
    int* rowPtr;
    int* colIdx;
    float* val;
    int* colPtr;
    int* rowIdx;
    float* valT;
    float* x;                 // colBlocks * 16
    float* y;
    unsigned short* xmask;
    int2* activeList;
    unsigned long long* counters;  // two, used alternately
    unsigned* autoArrivals;        // AutoDecision.arrivals: 2 words
    cudaGraphExec_t autoGraph[2];  // DB auto, one per counter parity
    cudaStream_t stream;      // every call of part 1 runs here: a created stream, because the
                              // legacy default stream cannot be captured into a graph (timeMs)
    DbGpu db[3];
    cusparseHandle_t handle;
    cusparseSpMatDescr_t csrDescr;
    cusparseDnVecDescr_t xDescr, yDescr;
    void* spmvBuffer;
    int haveBsr;
    cusparseMatDescr_t bsrDescr;
    int* bsrRowPtr;
    int* bsrColInd;
    float* bsrVal;
    int haveDense;            // decoding layers: the dense W for cuBLAS
    float* dense;
    cublasHandle_t cublas;
} Gpu;

static const int kVarCusparseCsr = 0;
static const int kVarCusparseBsr = 1;
static const int kVarPlainPull = 2;
static const int kVarPlainPush = 3;
static const int kVarMeta = 4;
static const int kVarDbPush = 5;
static const int kVarDbPull = 6;
static const int kVarDbAuto = 7;
static const int kVarDbAutoTwoKernels = 8;
static const int kVarDbAutoGraph = 9;
static const int kVarDbAutoStream = 10;
static const int kVarDbAutoHost = 11;
static const int kVarDbAutoNoPdl = 12;
static const int kVarDbAutoUnfused = 13;
static const int kVarDbAutoAtomicAdd = 14;
static const int kVarDbPushOtherRanges = 15;
static const int kVarDbPushColumns = 16;
static const int kVarDbPullCoo = 17;
static const int kVarDbPullCsr = 18;
static const int kVarCublasGemv = 19;
static const int kVarCount = 20;
static const char* const kVarNames[] = {
    "cuSPARSE CSR",         "cuSPARSE BSR",          "plain CSR pull",        "plain CSC push",
    "DB metadata only",     "DB push-only",          "DB pull-only",          "DB auto",
    "DB auto, two kernels", "DB auto, graph",        "DB auto, stream",       "DB auto, host picks",
    "DB auto, no PDL",      "DB auto, unfused",      "DB auto, atomicAdd",    "DB push, other ranges",
    "DB push, column walk", "DB pull, all-COO",      "DB pull, all-CSR",      "cuBLAS dense SGEMV"};

typedef struct {
    const Gpu* g;
    int variant;
    int* parity;  // which of the two counters this call uses
} LaunchCtx;

// snippet: time-ms
// Times a launch sequence: warm-up of this very sequence, then `runs` calls,
// mean in ms. Two ways to issue the timed calls:
// - kTimeGraph: the calls are captured into one CUDA graph, which is
//   replayed once before the events and once between them. This is the GPU's
//   time for a call. The host does not launch anything inside the window.
// - kTimeStream: the calls are launched one by one from the host, as an
//   application's loop would launch them. The host needs microseconds for
//   each launch, so a call shorter than its launches is timed at the host's
//   pace, not the GPU's.
//   "DB auto, stream" shows by how much. The searches of part 2 are
//   single launches of milliseconds and are timed this way.
// `makeCalls`, when not NULL, builds the graph of `runs` calls in place of a
// capture, after the warm-up: for a variant whose calls are graphs already
// (the conditional-node ablation), which cannot be captured.
static const int kTimeGraph = 0;
static const int kTimeStream = 1;

typedef struct {
    int warmups;
    int runs;
} RunCounts;

static float timeMs(void (*launch)(const void* ctx), const void* ctx, RunCounts rc, int mode, cudaStream_t stream,
                    cudaGraphExec_t (*makeCalls)(const void* ctx, int runs)) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < rc.warmups; ++i) launch(ctx);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaGetLastError());
    cudaGraphExec_t replay = NULL;
    if (mode == kTimeGraph && makeCalls != NULL) replay = makeCalls(ctx, rc.runs);
    if (mode == kTimeGraph && makeCalls == NULL) {
        cudaGraph_t graph;
        CUDA_CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
        for (int i = 0; i < rc.runs; ++i) launch(ctx);
        CUDA_CHECK(cudaStreamEndCapture(stream, &graph));
        CUDA_CHECK(cudaGraphInstantiate(&replay, graph, 0));
        CUDA_CHECK(cudaGraphDestroy(graph));
    }
    if (mode == kTimeGraph) {
        CUDA_CHECK(cudaGraphLaunch(replay, stream));  // uploads the graph: its first replay costs more
        CUDA_CHECK(cudaStreamSynchronize(stream));
    }
    CUDA_CHECK(cudaEventRecord(start, stream));
    if (mode == kTimeGraph) {
        CUDA_CHECK(cudaGraphLaunch(replay, stream));
    } else {
        for (int i = 0; i < rc.runs; ++i) launch(ctx);
    }
    CUDA_CHECK(cudaEventRecord(stop, stream));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaGetLastError());
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    if (mode == kTimeGraph) CUDA_CHECK(cudaGraphExecDestroy(replay));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms / rc.runs;
}
// end snippet

// Grids: the metadata step one thread block per 128 x (or y) blocks; push,
// pull and the one-kernel auto the whole GPU (pull no more blocks than it
// has segments).
static int metaGrid(const Gpu* g) {
    const int units = g->colBlocks > g->rowBlocks ? g->colBlocks : g->rowBlocks;
    return (units + kMetaColBlocksPerCta - 1) / kMetaColBlocksPerCta;
}

static int fullGrid(const Gpu* g) {
    return g->small ? kSmallGridCtas : g->sms * g->ctasPerSm;
}

static int pullGrid(const Gpu* g, const DbGpu* db) {
    const int grid = fullGrid(g);
    return grid < db->view.segmentCount ? grid : db->view.segmentCount;
}

static AutoDecision noDecision(void) {
    AutoDecision d;
    memset(&d, 0, sizeof(d));
    return d;
}

static void launchMeta(const Gpu* g, const DbGpu* db, int parity, int zeroY, int clearOther) {
    buildVectorMeta<<<metaGrid(g), kMetaThreads, 0, g->stream>>>(g->x, g->cols, g->colBlocks, g->rows, db->blockColPtr,
                                                   g->xmask, g->activeList, g->counters + parity,
                                                   clearOther ? g->counters + (1 - parity) : NULL, g->y, zeroY,
                                                   noDecision());
    CUDA_CHECK(cudaGetLastError());
}

// snippet: pdl-launch
// A launch that may overlap the kernel before it in the stream (programmatic
// dependent launch, PDL): its thread blocks can be scheduled as soon as that
// kernel's blocks have all started (the metadata step says so at its first
// instruction) or exited, and they wait in cudaGridDependencySynchronize()
// until its results are in memory. What it hides is the gap between two
// kernels: the first one's drain and the second one's launch.
// pdl 0 gives an ordinary launch, for the ablation that measures this.
typedef struct {
    cudaLaunchConfig_t config;
    cudaLaunchAttribute attribute;
} Launch;

static void setLaunch(Launch* l, int grid, int threads, int pdl, cudaStream_t stream) {
    const Launch zero = {};  // dim3 members: zeroed by initialisation, not memset
    *l = zero;
    l->config.gridDim = dim3(grid);
    l->config.blockDim = dim3(threads);
    l->config.stream = stream;
    l->attribute.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    l->attribute.val.programmaticStreamSerializationAllowed = pdl;
    l->config.attrs = &l->attribute;
    l->config.numAttrs = 1;
}
// end snippet

// otherRanges 1: push with the other task-range rule than the matrix's
// (the ablation "DB push, other ranges").
static void launchPush(const Gpu* g, const DbGpu* db, int parity, int onlyIfChosen, int pdl, int otherRanges) {
    Launch l;
    setLaunch(&l, fullGrid(g), kPushThreads, pdl, g->stream);
    DbView view = db->view;
    if (otherRanges) view.fullPasses = !view.fullPasses;
    CUDA_CHECK(cudaLaunchKernelEx(&l.config, dbPush, view, (const float*)g->x, (const unsigned short*)g->xmask,
                                  (const int2*)g->activeList, (const unsigned long long*)(g->counters + parity),
                                  onlyIfChosen, g->y));
}

static void launchPull(const Gpu* g, const DbGpu* db, int parity, int onlyIfChosen, int pdl) {
    Launch l;
    setLaunch(&l, pullGrid(g, db), kPullThreads, pdl, g->stream);
    CUDA_CHECK(cudaLaunchKernelEx(&l.config, dbPull, db->view, (const float*)g->x, (const unsigned short*)g->xmask,
                                  (const unsigned long long*)(g->counters + parity), onlyIfChosen, g->y));
}

static void launchAuto(const Gpu* g, const DbGpu* db, int parity, int pdl, int addMode) {
    Launch l;
    setLaunch(&l, fullGrid(g), kPullThreads, pdl, g->stream);
    void (*kernel)(DbView, const float*, const unsigned short*, const int2*, const unsigned long long*, float*) =
        addMode == kAddRed ? dbAuto<kAddRed> : dbAuto<kAddAtomic>;
    CUDA_CHECK(cudaLaunchKernelEx(&l.config, kernel, db->view, (const float*)g->x, (const unsigned short*)g->xmask,
                                  (const int2*)g->activeList, (const unsigned long long*)(g->counters + parity),
                                  g->y));
}

// snippet: auto-graph
// DB auto as a CUDA graph (an ablation): the metadata step, then a
// conditional node whose two bodies are dbPush and dbPull, the very kernels
// the single paths time. The metadata step's last thread block sets the
// condition from the work rule, so the choice is made on the device and
// only the chosen kernel is launched at all. It is the cleanest form of the
// idea, but the conditional node costs several microseconds a call on the
// H200, more than the launch that the one-kernel auto saves: most of the
// call at low density, and still up to an eighth of it at d = 0.1 (the
// transcript's "DB auto, graph").
// A graph's kernel arguments are fixed when it is built, so the counters
// alternate inside it: `calls` calls in a row from firstParity. The checked
// call launches a graph of one call (one per parity); the timing replays a
// graph of all its calls, like the captures of the other variants.
static cudaGraphNode_t addKernelNode(cudaGraph_t graph, const cudaGraphNode_t* after, int afterCount, void* kernel,
                                     int grid, int threads, void** args) {
    cudaKernelNodeParams kp = {};  // dim3 members: zeroed by initialisation, not memset
    kp.func = kernel;
    kp.gridDim = dim3(grid);
    kp.blockDim = dim3(threads);
    kp.kernelParams = args;
    cudaGraphNode_t node;
    CUDA_CHECK(cudaGraphAddKernelNode(&node, graph, after, afterCount, &kp));
    return node;
}

static cudaGraphExec_t buildAutoGraph(const Gpu* g, const DbGpu* db, int firstParity, int calls) {
    cudaGraph_t graph;
    CUDA_CHECK(cudaGraphCreate(&graph, 0));
    // Kernel arguments, one pointer per parameter, in the kernels' order;
    // the values are copied into the graph when a node is added.
    const float* x = g->x;
    int cols = g->cols, colBlocks = g->colBlocks, rows = g->rows, zeroY = 1, onlyIfChosen = 0;
    const int* blockColPtr = db->blockColPtr;
    unsigned short* xmask = g->xmask;
    int2* activeList = g->activeList;
    unsigned long long* counter = NULL;
    unsigned long long* counterToClear = NULL;
    float* y = g->y;
    DbView view = db->view;
    AutoDecision decide;
    decide.arrivals = g->autoArrivals;
    decide.blocks = db->view.blocks;
    decide.lightMatrix = db->view.lightMatrix;
    void* metaArgs[] = {&x, &cols, &colBlocks, &rows, &blockColPtr, &xmask, &activeList, &counter,
                        &counterToClear, &y, &zeroY, &decide};
    void* pushArgs[] = {&view, &x, &xmask, &activeList, &counter, &onlyIfChosen, &y};
    void* pullArgs[] = {&view, &x, &xmask, &counter, &onlyIfChosen, &y};
    cudaGraphNode_t previous;
    for (int call = 0; call < calls; ++call) {  // call k after call k-1, the counters alternating
        const int parity = (firstParity + call) & 1;
        counter = g->counters + parity;
        counterToClear = g->counters + (1 - parity);
        CUDA_CHECK(cudaGraphConditionalHandleCreate(&decide.handle, graph, 0, 0));  // one per conditional node
        const cudaGraphNode_t meta = addKernelNode(graph, call > 0 ? &previous : NULL, call > 0 ? 1 : 0,
                                                   (void*)buildVectorMeta, metaGrid(g), kMetaThreads, metaArgs);
        cudaGraphNodeParams cp = {};  // a union inside: zeroed by aggregate initialisation, not memset
        cp.type = cudaGraphNodeTypeConditional;
        cp.conditional.handle = decide.handle;
        cp.conditional.type = cudaGraphCondTypeIf;
        cp.conditional.size = 2;  // body 0 when the condition is nonzero (push), body 1 else (pull)
        CUDA_CHECK(cudaGraphAddNode(&previous, graph, &meta, NULL, 1, &cp));
        addKernelNode(cp.conditional.phGraph_out[0], NULL, 0, (void*)dbPush, fullGrid(g), kPushThreads, pushArgs);
        addKernelNode(cp.conditional.phGraph_out[1], NULL, 0, (void*)dbPull, pullGrid(g, db), kPullThreads,
                      pullArgs);
    }
    cudaGraphExec_t exec;
    CUDA_CHECK(cudaGraphInstantiate(&exec, graph, 0));
    CUDA_CHECK(cudaGraphDestroy(graph));  // the executable graph keeps what it needs
    return exec;
}
// end snippet

// snippet: auto-path
// One call of each variant. DB auto decides on the device: the metadata
// step leaves the push task count in GPU memory and ONE kernel (dbAuto)
// reads it, applies the work rule (choosePushByWork) and runs push or pull.
// It is launched with PDL, so its blocks are in place before the metadata
// step ends. No copy to the host, no synchronisation. The single paths get
// PDL too, so the comparison is of choices, not of launches. The ablations:
// "two kernels" launches dbPull and dbPush (PDL) and the one not chosen
// returns at once; "graph" runs a CUDA graph whose conditional node launches
// only the chosen kernel (buildAutoGraph); "stream" is DB auto itself, timed
// as the host launches it call by call (kTimeStream); "host picks" reads the
// count back (one round trip) and launches only the chosen kernel, timed the
// same way, since it cannot be captured; "no PDL" is DB auto
// with an ordinary launch; "unfused" is DB auto with y and the counter
// zeroed by two memsets instead of inside the metadata step; "atomicAdd" is
// DB auto with push's adds written as atomicAdd instead of red; "other
// ranges" is DB push-only with the other task-range rule (see pushBody);
// "column walk" is DB push-only with the schedule of pushColumnsBody.
static void launchVariant(const void* p) {
    const LaunchCtx* c = (const LaunchCtx*)p;
    const Gpu* g = c->g;
    const int parity = *c->parity;
    const float alpha = 1.0f, beta = 0.0f;
    switch (c->variant) {
    case kVarCusparseCsr:  // cuSPARSE CSR, y = A x with x as the dense array it already is
        CUSPARSE_CHECK(cusparseSpMV(g->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, g->csrDescr,
                                    g->xDescr, &beta, g->yDescr, CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1,
                                    g->spmvBuffer));
        return;
    case kVarCusparseBsr:  // cuSPARSE BSR with 16x16 blocks, the paper's vendor baseline
        CUSPARSE_CHECK(cusparseSbsrmv(g->handle, CUSPARSE_DIRECTION_ROW, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                      g->rowBlocks, g->colBlocks, g->db[0].view.blocks, &alpha,
                                      g->bsrDescr, g->bsrVal, g->bsrRowPtr, g->bsrColInd, kBlockDim,
                                      g->x, &beta, g->y));
        return;
    case kVarPlainPull:
        plainCsrPull<<<(int)(((long long)g->rows * kWarpSize + kPlainThreads - 1) / kPlainThreads),
                       kPlainThreads, 0, g->stream>>>(g->rows, g->rowPtr, g->colIdx, g->val, g->x, g->y);
        CUDA_CHECK(cudaGetLastError());
        return;
    case kVarPlainPush:  // y must start at zero: the memset is inside the window
        CUDA_CHECK(cudaMemsetAsync(g->y, 0, (size_t)g->rows * sizeof(float), g->stream));
        plainCscPush<<<(int)(((long long)g->cols + kPlainThreads - 1) / kPlainThreads), kPlainThreads, 0, g->stream>>>(
            g->cols, g->colPtr, g->rowIdx, g->valT, g->x, g->y);
        CUDA_CHECK(cudaGetLastError());
        return;
    case kVarMeta:
        launchMeta(g, &g->db[0], parity, 1, 1);
        break;
    case kVarDbPush:
        launchMeta(g, &g->db[0], parity, 1, 1);
        launchPush(g, &g->db[0], parity, 0, 1, 0);
        break;
    case kVarDbPushOtherRanges:
        launchMeta(g, &g->db[0], parity, 1, 1);
        launchPush(g, &g->db[0], parity, 0, 1, 1);
        break;
    case kVarDbPushColumns: {
        launchMeta(g, &g->db[0], parity, 1, 1);
        Launch l;
        setLaunch(&l, fullGrid(g), kPushThreads, 1, g->stream);
        CUDA_CHECK(cudaLaunchKernelEx(&l.config, dbPushColumns, g->db[0].view, (const float*)g->x,
                                      (const unsigned short*)g->xmask, (const int2*)g->activeList,
                                      (const unsigned long long*)(g->counters + parity), g->y));
        break;
    }
    case kVarDbPull:
        launchMeta(g, &g->db[0], parity, 0, 1);
        launchPull(g, &g->db[0], parity, 0, 1);
        break;
    case kVarDbAuto:
    case kVarDbAutoStream:  // the same launches, timed as the host issues them (kTimeStream)
    case kVarDbAutoNoPdl:
        launchMeta(g, &g->db[0], parity, 1, 1);
        launchAuto(g, &g->db[0], parity, c->variant != kVarDbAutoNoPdl, kAddRed);
        break;
    case kVarDbAutoAtomicAdd:  // push's adds as atomicAdd, which this kernel compiles to returning atomics
        launchMeta(g, &g->db[0], parity, 1, 1);
        launchAuto(g, &g->db[0], parity, 1, kAddAtomic);
        break;
    case kVarDbAutoTwoKernels:  // pull first: when push is chosen, pull's blocks leave at once
        launchMeta(g, &g->db[0], parity, 1, 1);
        launchPull(g, &g->db[0], parity, 1, 1);
        launchPush(g, &g->db[0], parity, 1, 1, 0);
        break;
    case kVarDbAutoGraph:
        CUDA_CHECK(cudaGraphLaunch(g->autoGraph[parity], g->stream));
        break;
    case kVarDbAutoHost: {
        launchMeta(g, &g->db[0], parity, 1, 1);
        unsigned long long count = 0ull;
        CUDA_CHECK(cudaMemcpyAsync(&count, g->counters + parity, sizeof(count), cudaMemcpyDeviceToHost, g->stream));
        CUDA_CHECK(cudaStreamSynchronize(g->stream));
        if (choosePushByWork((long long)(count & 0xffffffffull), g->db[0].view.blocks, g->db[0].view.lightMatrix)) {
            launchPush(g, &g->db[0], parity, 0, 0, 0);
        } else {
            launchPull(g, &g->db[0], parity, 0, 0);
        }
        break;
    }
    case kVarDbAutoUnfused:  // the same work with the zeroing done by two memsets
        CUDA_CHECK(cudaMemsetAsync(g->y, 0, (size_t)g->rows * sizeof(float), g->stream));
        CUDA_CHECK(cudaMemsetAsync(g->counters + parity, 0, sizeof(unsigned long long), g->stream));
        launchMeta(g, &g->db[0], parity, 0, 0);
        launchAuto(g, &g->db[0], parity, 1, kAddRed);
        return;  // parity unchanged: this variant clears its own counter
    case kVarCublasGemv:  // W row-major is W^T column-major: y = (W^T)^T x
        CUBLAS_CHECK(cublasSgemv(g->cublas, CUBLAS_OP_T, g->cols, g->rows, &alpha, g->dense, g->cols, g->x, 1,
                                 &beta, g->y, 1));
        return;
    case kVarDbPullCoo:
    case kVarDbPullCsr: {
        const DbGpu* db = &g->db[c->variant == kVarDbPullCoo ? kPolicyAllCoo : kPolicyAllCsr];
        launchMeta(g, db, parity, 0, 1);
        launchPull(g, db, parity, 0, 1);
        break;
    }
    default:
        return;
    }
    *c->parity = 1 - parity;
}
// end snippet

// The conditional-node ablation's timed calls: one graph of `runs` calls,
// starting on the counter the next call would use (timeMs's makeCalls).
static cudaGraphExec_t autoGraphCalls(const void* p, int runs) {
    const LaunchCtx* c = (const LaunchCtx*)p;
    return buildAutoGraph(c->g, &c->g->db[0], *c->parity, runs);
}

// ---------------------------------------------------------------------------
// GPU setup per input
// ---------------------------------------------------------------------------

static void* devUpload(const void* host, size_t bytes) {
    void* d = NULL;
    CUDA_CHECK(cudaMalloc(&d, bytes > 0 ? bytes : 4));
    if (bytes > 0) CUDA_CHECK(cudaMemcpy(d, host, bytes, cudaMemcpyHostToDevice));
    return d;
}

static void uploadDb(const DbFormat* f, const Csr* a, DbGpu* d) {
    d->desc = (int*)devUpload(f->desc, (size_t)f->blocks * 4 * sizeof(int));
    d->payload = (unsigned*)devUpload(f->payload, (size_t)f->payloadWords * sizeof(unsigned));
    d->blockColPtr = (int*)devUpload(f->blockColPtr, ((size_t)f->colBlocks + 1) * sizeof(int));
    d->cscRowIdx = (int*)devUpload(f->cscRowIdx, (size_t)f->blocks * sizeof(int));
    d->csc2csr = (int*)devUpload(f->csc2csr, (size_t)f->blocks * sizeof(int));
    d->cscColMask = (unsigned short*)devUpload(f->cscColMask, (size_t)f->blocks * sizeof(unsigned short));
    d->segments = (int*)devUpload(f->segments, (size_t)f->segmentCount * 4 * sizeof(int));
    d->rowSegPtr = (int*)devUpload(f->rowSegPtr, ((size_t)f->rowBlocks + 1) * sizeof(int));
    CUDA_CHECK(cudaMalloc(&d->scratch, (size_t)f->segmentCount * kBlockDim * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d->rowCounter, (size_t)f->rowBlocks * sizeof(int)));
    CUDA_CHECK(cudaMemset(d->rowCounter, 0, (size_t)f->rowBlocks * sizeof(int)));
    DbView* v = &d->view;
    v->rows = a->rows;
    v->cols = a->cols;
    v->rowBlocks = f->rowBlocks;
    v->colBlocks = f->colBlocks;
    v->blocks = f->blocks;
    v->lightMatrix = f->lightMatrix;
    v->columnGroup = f->columnGroup;
    v->fullPasses = f->lightMatrix;
    v->segmentCount = f->segmentCount;
    v->desc = (const int4*)d->desc;
    v->payload = d->payload;
    v->blockColPtr = d->blockColPtr;
    v->cscRowIdx = d->cscRowIdx;
    v->csc2csr = d->csc2csr;
    v->cscColMask = d->cscColMask;
    v->segments = (const int4*)d->segments;
    v->rowSegPtr = d->rowSegPtr;
    v->scratch = d->scratch;
    v->rowCounter = d->rowCounter;
}

static void freeDbGpu(DbGpu* d) {
    CUDA_CHECK(cudaFree(d->desc));
    CUDA_CHECK(cudaFree(d->payload));
    CUDA_CHECK(cudaFree(d->blockColPtr));
    CUDA_CHECK(cudaFree(d->cscRowIdx));
    CUDA_CHECK(cudaFree(d->csc2csr));
    CUDA_CHECK(cudaFree(d->cscColMask));
    CUDA_CHECK(cudaFree(d->segments));
    CUDA_CHECK(cudaFree(d->rowSegPtr));
    CUDA_CHECK(cudaFree(d->scratch));
    CUDA_CHECK(cudaFree(d->rowCounter));
}

// BSR with 16x16 row-major blocks, built from the DB block structure (same
// blocks, same order), so cuSPARSE BSR sees exactly the blocks DB stores.
static void buildBsr(const Input* in, Gpu* g) {
    const DbFormat* f = &in->db[0];
    const Csr* a = &in->a;
    int* colInd = (int*)xmalloc((size_t)f->blocks * sizeof(int));
    for (int b = 0; b < f->blocks; ++b) colInd[b] = f->desc[4LL * b + 1];
    float* values = (float*)xcalloc((size_t)f->blocks * kBlockArea, sizeof(float));
    for (int row = 0; row < a->rows; ++row) {
        const int rb = row / kBlockDim;
        int b = f->blockRowPtr[rb];
        for (int k = a->rowPtr[row]; k < a->rowPtr[row + 1]; ++k) {
            const int cb = a->colIdx[k] / kBlockDim;
            while (colInd[b] < cb) ++b;
            values[(size_t)b * kBlockArea + (row % kBlockDim) * kBlockDim + a->colIdx[k] % kBlockDim] = a->val[k];
        }
    }
    g->bsrRowPtr = (int*)devUpload(f->blockRowPtr, ((size_t)f->rowBlocks + 1) * sizeof(int));
    g->bsrColInd = (int*)devUpload(colInd, (size_t)f->blocks * sizeof(int));
    g->bsrVal = (float*)devUpload(values, (size_t)f->blocks * kBlockArea * sizeof(float));
    free(colInd);
    free(values);
    CUSPARSE_CHECK(cusparseCreateMatDescr(&g->bsrDescr));
    CUSPARSE_CHECK(cusparseSetMatType(g->bsrDescr, CUSPARSE_MATRIX_TYPE_GENERAL));
    CUSPARSE_CHECK(cusparseSetMatIndexBase(g->bsrDescr, CUSPARSE_INDEX_BASE_ZERO));
    g->haveBsr = 1;
}

static int bsrFits(const Input* in) {
    return (double)in->db[0].blocks * kBlockArea * sizeof(float) <= kBsrMaxBytes;
}

static void setupGpu(const Input* in, const float* denseW, int sms, int ctasPerSm, int small, Gpu* g) {
    memset(g, 0, sizeof(*g));
    const Csr* a = &in->a;
    g->sms = sms;
    g->ctasPerSm = ctasPerSm;
    g->small = small;
    g->rows = a->rows;
    g->cols = a->cols;
    g->nnz = a->nnz;
    g->rowBlocks = in->db[0].rowBlocks;
    g->colBlocks = in->db[0].colBlocks;
    g->rowPtr = (int*)devUpload(a->rowPtr, ((size_t)a->rows + 1) * sizeof(int));
    g->colIdx = (int*)devUpload(a->colIdx, (size_t)a->nnz * sizeof(int));
    g->val = (float*)devUpload(a->val, (size_t)a->nnz * sizeof(float));
    g->colPtr = (int*)devUpload(in->at.rowPtr, ((size_t)a->cols + 1) * sizeof(int));
    g->rowIdx = (int*)devUpload(in->at.colIdx, (size_t)a->nnz * sizeof(int));
    g->valT = (float*)devUpload(in->at.val, (size_t)a->nnz * sizeof(float));
    CUDA_CHECK(cudaMalloc(&g->x, (size_t)g->colBlocks * kBlockDim * sizeof(float)));
    g->yAllocated = g->rowBlocks * kBlockDim + kCanaryFloats;
    CUDA_CHECK(cudaMalloc(&g->y, (size_t)g->yAllocated * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&g->xmask, (size_t)g->colBlocks * sizeof(unsigned short)));
    CUDA_CHECK(cudaMalloc(&g->activeList, (size_t)g->colBlocks * sizeof(int2)));
    CUDA_CHECK(cudaMalloc(&g->counters, 2 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemset(g->counters, 0, 2 * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc(&g->autoArrivals, 2 * sizeof(unsigned)));
    CUDA_CHECK(cudaMemset(g->autoArrivals, 0, 2 * sizeof(unsigned)));
    for (int p = 0; p < kPolicyCount; ++p) uploadDb(&in->db[p], a, &g->db[p]);
    CUDA_CHECK(cudaStreamCreate(&g->stream));  // a blocking stream: the checks' copies wait for it
    for (int parity = 0; parity < 2; ++parity) g->autoGraph[parity] = buildAutoGraph(g, &g->db[0], parity, 1);
    CUSPARSE_CHECK(cusparseCreate(&g->handle));
    CUSPARSE_CHECK(cusparseSetStream(g->handle, g->stream));
    CUSPARSE_CHECK(cusparseCreateCsr(&g->csrDescr, a->rows, a->cols, a->nnz, g->rowPtr, g->colIdx, g->val,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                     CUDA_R_32F));
    CUSPARSE_CHECK(cusparseCreateDnVec(&g->xDescr, a->cols, g->x, CUDA_R_32F));
    CUSPARSE_CHECK(cusparseCreateDnVec(&g->yDescr, a->rows, g->y, CUDA_R_32F));
    const float alpha = 1.0f, beta = 0.0f;
    size_t bufferBytes = 0;
    CUSPARSE_CHECK(cusparseSpMV_bufferSize(g->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, g->csrDescr,
                                           g->xDescr, &beta, g->yDescr, CUDA_R_32F, CUSPARSE_SPMV_CSR_ALG1,
                                           &bufferBytes));
    CUDA_CHECK(cudaMalloc(&g->spmvBuffer, bufferBytes > 0 ? bufferBytes : 4));
    if (bsrFits(in) && denseW == NULL) buildBsr(in, g);
    if (denseW != NULL) {
        g->dense = (float*)devUpload(denseW, (size_t)a->rows * a->cols * sizeof(float));
        CUBLAS_CHECK(cublasCreate(&g->cublas));
        CUBLAS_CHECK(cublasSetStream(g->cublas, g->stream));
        g->haveDense = 1;
    }
}

static void freeGpu(Gpu* g) {
    CUSPARSE_CHECK(cusparseDestroySpMat(g->csrDescr));
    CUSPARSE_CHECK(cusparseDestroyDnVec(g->xDescr));
    CUSPARSE_CHECK(cusparseDestroyDnVec(g->yDescr));
    if (g->haveBsr) {
        CUSPARSE_CHECK(cusparseDestroyMatDescr(g->bsrDescr));
        CUDA_CHECK(cudaFree(g->bsrRowPtr));
        CUDA_CHECK(cudaFree(g->bsrColInd));
        CUDA_CHECK(cudaFree(g->bsrVal));
    }
    CUSPARSE_CHECK(cusparseDestroy(g->handle));
    if (g->haveDense) {
        CUBLAS_CHECK(cublasDestroy(g->cublas));
        CUDA_CHECK(cudaFree(g->dense));
    }
    CUDA_CHECK(cudaFree(g->spmvBuffer));
    for (int p = 0; p < kPolicyCount; ++p) freeDbGpu(&g->db[p]);
    CUDA_CHECK(cudaFree(g->rowPtr));
    CUDA_CHECK(cudaFree(g->colIdx));
    CUDA_CHECK(cudaFree(g->val));
    CUDA_CHECK(cudaFree(g->colPtr));
    CUDA_CHECK(cudaFree(g->rowIdx));
    CUDA_CHECK(cudaFree(g->valT));
    CUDA_CHECK(cudaFree(g->x));
    CUDA_CHECK(cudaFree(g->y));
    CUDA_CHECK(cudaFree(g->xmask));
    CUDA_CHECK(cudaFree(g->activeList));
    CUDA_CHECK(cudaFree(g->counters));
    CUDA_CHECK(cudaFree(g->autoArrivals));
    for (int parity = 0; parity < 2; ++parity) CUDA_CHECK(cudaGraphExecDestroy(g->autoGraph[parity]));
    CUDA_CHECK(cudaStreamDestroy(g->stream));
}

// Poisons y with NaN and the canary zone with its byte pattern.
static void poisonY(const Gpu* g, int canaryStart) {
    CUDA_CHECK(cudaMemset(g->y, 0xFF, (size_t)canaryStart * sizeof(float)));
    CUDA_CHECK(cudaMemset(g->y + canaryStart, kCanaryByte, (size_t)(g->yAllocated - canaryStart) * sizeof(float)));
}

// The metadata step's results, exactly: masks, count, task total, and a list
// whose offsets partition the task space in order.
static int judgeMeta(const char* what, const Gpu* g, const Input* in, const XCase* xc, int parity) {
    const DbFormat* f = &in->db[0];
    unsigned short* mask = (unsigned short*)xmalloc((size_t)f->colBlocks * sizeof(unsigned short));
    int2* list = (int2*)xmalloc((size_t)f->colBlocks * sizeof(int2));
    unsigned long long count = 0ull;
    CUDA_CHECK(cudaMemcpy(mask, g->xmask, (size_t)f->colBlocks * sizeof(unsigned short), cudaMemcpyDeviceToHost));
    // The counter first: its high half is how many list entries the step
    // wrote, and only those are copied (the rest of the buffer was never
    // written, and reading it is what initcheck flagged).
    CUDA_CHECK(cudaMemcpy(&count, g->counters + parity, sizeof(count), cudaMemcpyDeviceToHost));
    const int written = (int)(count >> 32);
    if (written > 0 && written <= f->colBlocks) {
        CUDA_CHECK(cudaMemcpy(list, g->activeList, (size_t)written * sizeof(int2), cudaMemcpyDeviceToHost));
    }
    int faults = 0;
    for (int cb = 0; cb < f->colBlocks; ++cb) {
        if (mask[cb] != xc->mask[cb]) {
            fprintf(stderr, "%s: mask of x block %d is 0x%04x, want 0x%04x\n", what, cb, mask[cb], xc->mask[cb]);
            ++faults;
            break;
        }
    }
    const int active = (int)(count >> 32);
    const long long tasks = (long long)(count & 0xffffffffull);
    if (active != xc->activeBlocks || tasks != xc->pushTasks) {
        fprintf(stderr, "%s: counted %d nonzero blocks and %lld tasks, want %d and %lld\n", what, active, tasks,
                xc->activeBlocks, xc->pushTasks);
        ++faults;
    } else {
        long long next = 0;
        for (int k = 0; k < active; ++k) {
            const int cb = list[k].x;
            if (cb < 0 || cb >= f->colBlocks || xc->mask[cb] == 0 || list[k].y != next) {
                fprintf(stderr, "%s: active list entry %d is (%d, %d), offsets do not line up\n", what, k, cb, list[k].y);
                ++faults;
                break;
            }
            next += f->blockColPtr[cb + 1] - f->blockColPtr[cb];
        }
    }
    free(mask);
    free(list);
    return faults;
}

// Which variants run for one x: everything for random x; for clustered x
// the paths the lesson compares; the layout ablation at the first density
// only, as the paper's Fig. 10 does at 0.1.
static int variantRuns(int v, const XCase* xc, const Gpu* g, int firstDensity) {
    if (v == kVarCusparseBsr && !g->haveBsr) return 0;
    if (g->haveDense) {  // a decoding layer: the vendor paths and the DB paths
        return v == kVarCublasGemv || v == kVarCusparseCsr || v == kVarDbPush || v == kVarDbPull || v == kVarDbAuto;
    }
    if (v == kVarCublasGemv) return 0;
    if (xc->pattern == kPatternClustered) {
        return v == kVarCusparseCsr || v == kVarMeta || v == kVarDbPush || v == kVarDbPull || v == kVarDbAuto;
    }
    if (v == kVarDbPullCoo || v == kVarDbPullCsr) return firstDensity;
    if (v == kVarDbPushColumns) return g->db[0].view.columnGroup > 0;  // a column block fits a warp
    return 1;
}

// Checks the output of the latest call of variant v. parity is the counter
// the NEXT call would use, so the latest call used the other one (the
// unfused variant never flips).
static int judgeVariant(const char* what, const Gpu* g, const Input* in, const XCase* xc, int v, int parity,
                        int canaryStart, float* hostY) {
    if (v == kVarMeta) return judgeMeta(what, g, in, xc, 1 - parity);
    int faults = 0;
    if (v == kVarDbAutoGraph) {  // the graph's path: the one the host's rule predicts, and every block arrived
        unsigned arrivals[2];
        CUDA_CHECK(cudaMemcpy(arrivals, g->autoArrivals, sizeof(arrivals), cudaMemcpyDeviceToHost));
        if (arrivals[0] != 0u || (int)arrivals[1] != xc->pushChosen) {
            fprintf(stderr, "%s: the graph took %s with %u arrivals left over, the rule says %s\n", what,
                    arrivals[1] ? "push" : "pull", arrivals[0], xc->pushChosen ? "push" : "pull");
            ++faults;
        }
    }
    CUDA_CHECK(cudaMemcpy(hostY, g->y, (size_t)g->yAllocated * sizeof(float), cudaMemcpyDeviceToHost));
    return faults + judgeY(what, xc, hostY, g->rows, canaryStart, g->yAllocated);
}

// ---------------------------------------------------------------------------
// DB-BFS and the day-38-style search on the GPU
// ---------------------------------------------------------------------------

typedef struct {
    BfsView view;
    int grid;                 // co-resident thread blocks of the cooperative loops
    int maxLevels;
    unsigned long long* clock;
    int* hostDist;
    unsigned* hostVertices;
    unsigned* hostOpen;
    int* hostPath;
    unsigned long long* hostClock;
} BfsGpu;

typedef struct {
    const BfsGpu* g;
    int variant;
    int source;
    unsigned long long* clock;  // NULL: the un-instrumented search
} BfsCtx;

static void setupBfsGpu(const BfsGraph* bg, int sms, int small, BfsGpu* b) {
    memset(b, 0, sizeof(*b));
    const DbFormat* f = &bg->db;
    const Csr* a = &bg->adj;
    BfsView* v = &b->view;
    v->n = a->rows;
    v->vblocks = f->rowBlocks;
    v->blocks = f->blocks;
    v->pushWave = bg->pushWave;
    v->maxLevels = a->rows + 1;  // a path graph has n levels
    b->maxLevels = v->maxLevels;
    v->desc = (const int4*)devUpload(f->desc, (size_t)f->blocks * 4 * sizeof(int));
    v->payload = (const unsigned*)devUpload(f->payload, (size_t)f->payloadWords * sizeof(unsigned));
    v->blockRowPtr = (const int*)devUpload(f->blockRowPtr, ((size_t)f->rowBlocks + 1) * sizeof(int));
    v->blockColPtr = (const int*)devUpload(f->blockColPtr, ((size_t)f->colBlocks + 1) * sizeof(int));
    v->csc2csr = (const int*)devUpload(f->csc2csr, (size_t)f->blocks * sizeof(int));
    v->cscColMask = (const unsigned short*)devUpload(f->cscColMask, (size_t)f->blocks * sizeof(unsigned short));
    // Boolean pull's schedule: each row block's blocks in runs of at most
    // kBfsPullSegmentBlocks; a row block without blocks has nothing to find.
    long long segCount = 0;
    for (int rb = 0; rb < f->rowBlocks; ++rb) {
        segCount += (f->blockRowPtr[rb + 1] - f->blockRowPtr[rb] + kBfsPullSegmentBlocks - 1) / kBfsPullSegmentBlocks;
    }
    int* segs = (int*)xmalloc((size_t)segCount * 4 * sizeof(int) + 16);
    long long ns = 0;
    for (int rb = 0; rb < f->rowBlocks; ++rb) {
        for (int b = f->blockRowPtr[rb]; b < f->blockRowPtr[rb + 1]; b += kBfsPullSegmentBlocks) {
            const int end = b + kBfsPullSegmentBlocks < f->blockRowPtr[rb + 1] ? b + kBfsPullSegmentBlocks
                                                                                : f->blockRowPtr[rb + 1];
            segs[4 * ns] = rb;
            segs[4 * ns + 1] = b;
            segs[4 * ns + 2] = end;
            segs[4 * ns + 3] = 0;
            ++ns;
        }
    }
    v->pullSegments = (const int4*)devUpload(segs, (size_t)segCount * 4 * sizeof(int));
    v->pullSegmentCount = (int)segCount;  // at most the block count, an int
    free(segs);
    // Vertices no search reaches (no edges, or past n) start out visited, so
    // a row block whose other vertices are all found closes and pull skips it.
    unsigned short* unreachable = (unsigned short*)xmalloc((size_t)f->rowBlocks * sizeof(unsigned short) + 2);
    long long baseOpen = 0;
    for (int rb = 0; rb < f->rowBlocks; ++rb) {
        unsigned m = 0u;
        for (int k = 0; k < kBlockDim; ++k) {
            const int vtx = rb * kBlockDim + k;
            if (vtx >= a->rows || hasNoEdges(a, vtx)) m |= 1u << k;
        }
        unreachable[rb] = (unsigned short)m;
        if (m != 0xffffu) baseOpen += f->blockRowPtr[rb + 1] - f->blockRowPtr[rb];
    }
    v->unreachable = (const unsigned short*)devUpload(unreachable, (size_t)f->rowBlocks * sizeof(unsigned short));
    v->baseOpen = (unsigned)baseOpen;  // at most the block count, an int
    free(unreachable);
    v->rowPtr = (const int*)devUpload(a->rowPtr, ((size_t)a->rows + 1) * sizeof(int));
    v->colIdx = (const int*)devUpload(a->colIdx, (size_t)a->nnz * sizeof(int));
    CUDA_CHECK(cudaMalloc(&v->dist, (size_t)a->rows * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&v->frontier, (size_t)f->rowBlocks * sizeof(unsigned short)));
    CUDA_CHECK(cudaMalloc(&v->visited, (size_t)f->rowBlocks * sizeof(unsigned short)));
    CUDA_CHECK(cudaMalloc(&v->next, (size_t)f->rowBlocks * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&v->activeList, (size_t)f->rowBlocks * sizeof(int2)));
    CUDA_CHECK(cudaMalloc(&v->levelCounter, ((size_t)v->maxLevels + 1) * sizeof(unsigned long long)));
    CUDA_CHECK(cudaMalloc(&v->levelVertices, ((size_t)v->maxLevels + 1) * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&v->levelOpen, ((size_t)v->maxLevels + 1) * sizeof(unsigned)));
    CUDA_CHECK(cudaMalloc(&v->levelPath, ((size_t)v->maxLevels + 1) * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&v->queue, (size_t)a->rows * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&b->clock, ((size_t)v->maxLevels + 1) * sizeof(unsigned long long)));
    int perSmDb = 0, perSmWarp = 0;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSmDb, dbBfsLoop, kBfsThreads, 0));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSmWarp, warpBfsLoop, kBfsThreads, 0));
    const int perSm = perSmDb < perSmWarp ? perSmDb : perSmWarp;  // one grid for both: same barrier cost
    b->grid = small ? kSmallGridCtas : sms * (perSm > 0 ? perSm : 1);
    b->hostDist = (int*)xmalloc((size_t)a->rows * sizeof(int));
    b->hostVertices = (unsigned*)xmalloc(((size_t)v->maxLevels + 1) * sizeof(unsigned));
    b->hostOpen = (unsigned*)xmalloc(((size_t)v->maxLevels + 1) * sizeof(unsigned));
    b->hostPath = (int*)xmalloc(((size_t)v->maxLevels + 1) * sizeof(int));
    b->hostClock = (unsigned long long*)xmalloc(((size_t)v->maxLevels + 1) * sizeof(unsigned long long));
}

static void freeBfsGpu(BfsGpu* b) {
    BfsView* v = &b->view;
    CUDA_CHECK(cudaFree((void*)v->desc));
    CUDA_CHECK(cudaFree((void*)v->payload));
    CUDA_CHECK(cudaFree((void*)v->blockRowPtr));
    CUDA_CHECK(cudaFree((void*)v->blockColPtr));
    CUDA_CHECK(cudaFree((void*)v->csc2csr));
    CUDA_CHECK(cudaFree((void*)v->cscColMask));
    CUDA_CHECK(cudaFree((void*)v->pullSegments));
    CUDA_CHECK(cudaFree((void*)v->unreachable));
    CUDA_CHECK(cudaFree((void*)v->rowPtr));
    CUDA_CHECK(cudaFree((void*)v->colIdx));
    CUDA_CHECK(cudaFree(v->dist));
    CUDA_CHECK(cudaFree(v->frontier));
    CUDA_CHECK(cudaFree(v->visited));
    CUDA_CHECK(cudaFree(v->next));
    CUDA_CHECK(cudaFree(v->activeList));
    CUDA_CHECK(cudaFree(v->levelCounter));
    CUDA_CHECK(cudaFree(v->levelVertices));
    CUDA_CHECK(cudaFree(v->levelOpen));
    CUDA_CHECK(cudaFree(v->levelPath));
    CUDA_CHECK(cudaFree(v->queue));
    CUDA_CHECK(cudaFree(b->clock));
    free(b->hostDist);
    free(b->hostVertices);
    free(b->hostOpen);
    free(b->hostPath);
    free(b->hostClock);
}

// One whole search: one cooperative launch, reset included, so the time of
// a search is one launch and everything in it.
static void launchBfs(const void* p) {
    const BfsCtx* c = (const BfsCtx*)p;
    BfsView view = c->g->view;
    int source = c->source;
    unsigned long long* clock = c->clock;
    if (c->variant == kBfsVarWarp) {
        void* args[] = {&view, &source, &clock};
        CUDA_CHECK(cudaLaunchCooperativeKernel((const void*)warpBfsLoop, c->g->grid, kBfsThreads, args, 0, 0));
    } else {
        int mode = c->variant == kBfsVarPush ? kBfsModePush : (c->variant == kBfsVarPull ? kBfsModePull : kBfsModeAuto);
        void* args[] = {&view, &source, &mode, &clock};
        CUDA_CHECK(cudaLaunchCooperativeKernel((const void*)dbBfsLoop, c->g->grid, kBfsThreads, args, 0, 0));
    }
    CUDA_CHECK(cudaGetLastError());
}

// The levels of the last search, exactly: every vertex's level against the
// CPU's, every level's frontier size, and for DB auto the path of every
// level against the rule applied to the CPU's counts.
static int judgeBfs(const char* what, const BfsGpu* b, const BfsGraph* bg, int r, int variant) {
    const int n = bg->adj.rows, levels = bg->levels[r];
    const int* want = bg->dist + (long long)r * n;
    CUDA_CHECK(cudaMemcpy(b->hostDist, b->view.dist, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(b->hostVertices, b->view.levelVertices, ((size_t)levels + 1) * sizeof(unsigned),
                          cudaMemcpyDeviceToHost));
    int faults = 0;
    for (int v = 0; v < n; ++v) {
        if (b->hostDist[v] != want[v]) {
            fprintf(stderr, "%s: vertex %d has level %d, want %d\n", what, v, b->hostDist[v], want[v]);
            ++faults;
            break;
        }
    }
    for (int l = 0; l <= levels; ++l) {
        const unsigned wantSize = l < levels ? (unsigned)bg->levelVertices[r][l] : 0u;
        if (b->hostVertices[l] != wantSize) {
            fprintf(stderr, "%s: level %d holds %u vertices, want %u\n", what, l, b->hostVertices[l], wantSize);
            ++faults;
            break;
        }
    }
    if (variant != kBfsVarWarp) {
        CUDA_CHECK(cudaMemcpy(b->hostOpen, b->view.levelOpen, ((size_t)levels + 1) * sizeof(unsigned),
                              cudaMemcpyDeviceToHost));
        for (int l = 0; l <= levels; ++l) {
            if ((long long)b->hostOpen[l] != bg->levelOpen[r][l]) {
                fprintf(stderr, "%s: level %d counted %u open blocks, want %lld\n", what, l, b->hostOpen[l],
                        bg->levelOpen[r][l]);
                ++faults;
                break;
            }
        }
        CUDA_CHECK(cudaMemcpy(b->hostPath, b->view.levelPath, (size_t)levels * sizeof(int), cudaMemcpyDeviceToHost));
        for (int l = 0; l < levels; ++l) {
            const int wantPush = variant == kBfsVarPush ||
                                 (variant == kBfsVarAuto &&
                                  chooseBfsPush(bg->levelTasks[r][l], bg->levelOpen[r][l], bg->pushWave));
            if (b->hostPath[l] != wantPush) {
                fprintf(stderr, "%s: level %d took %s, the rule says %s\n", what, l, b->hostPath[l] ? "push" : "pull",
                        wantPush ? "push" : "pull");
                ++faults;
                break;
            }
        }
    }
    return faults;
}

// Results of one graph's searches, for the report and the headlines.
typedef struct {
    double meanMs[4];         // by variant, mean over roots
    double gteps[4];          // harmonic mean over roots
    int ok[4];
} BfsResult;

// Every variant from every root: a checked search (poisoned dist first),
// the timed searches, the last one checked again. Then one instrumented
// search per variant from the first root, with a device-clock stamp after
// every level, for the per-level table; its times are not the headline's.
static int runBfsGraph(const BfsGraph* bg, const BfsGpu* b, RunCounts rc, BfsResult* res, const char* plotFig) {
    int failures = 0;
    memset(res, 0, sizeof(*res));
    static double levelMs[4][64];
    if (bg->levels[0] > kBfsManyLevels) rc.runs = 1;
    printf("\nbfs %s: %d roots; one cooperative launch per search (reset, every level, both barriers)\n", bg->name,
           bg->rootCount);
    for (int var = 0; var < kBfsVarCount; ++var) {
        double sumMs = 0.0, sumInvTeps = 0.0;
        int wrong = 0;
        for (int r = 0; r < bg->rootCount && !wrong; ++r) {
            char what[192];
            snprintf(what, sizeof(what), "bfs %.90s, root %d, %s", bg->name, bg->roots[r], kBfsVarNames[var]);
            BfsCtx ctx;
            ctx.g = b;
            ctx.variant = var;
            ctx.source = bg->roots[r];
            ctx.clock = NULL;
            CUDA_CHECK(cudaMemset(b->view.dist, 0x7f, (size_t)bg->adj.rows * sizeof(int)));
            launchBfs(&ctx);
            CUDA_CHECK(cudaDeviceSynchronize());
            wrong += judgeBfs(what, b, bg, r, var);
            if (wrong) break;
            const double ms = timeMs(launchBfs, &ctx, rc, kTimeStream, 0, NULL);
            wrong += judgeBfs(what, b, bg, r, var);
            sumMs += ms;
            sumInvTeps += ms * 1e-3 / (double)(bg->edges[r] > 0 ? bg->edges[r] : 1);
        }
        if (wrong) {
            printf("  %-18s wrong levels, not timed (see stderr)\n", kBfsVarNames[var]);
            ++failures;
            continue;
        }
        res->ok[var] = 1;
        res->meanMs[var] = sumMs / bg->rootCount;
        res->gteps[var] = bg->rootCount / sumInvTeps / 1e9;
        printf("~   %-18s %10.4f ms a search (mean of %d roots) %9.3f GTEPS (harmonic mean)%s\n", kBfsVarNames[var],
               res->meanMs[var], bg->rootCount, res->gteps[var], bg->graph500 ? ", Graph500 rule" : "");
    }
    if (failures == 0) {
        printf("  checks: %d variants x %d roots: every level exact against the CPU, level sizes exact, DB auto's path per level as the rule says\n",
               kBfsVarCount, bg->rootCount);
    }
    if (res->ok[kBfsVarWarp] && res->ok[kBfsVarAuto]) {
        printf("~   DB-BFS auto over the day-38 BFS: %.2fx; auto over the faster single path: %.2fx\n",
               res->meanMs[kBfsVarWarp] / res->meanMs[kBfsVarAuto],
               (res->meanMs[kBfsVarPush] < res->meanMs[kBfsVarPull] ? res->meanMs[kBfsVarPush] : res->meanMs[kBfsVarPull]) /
                   res->meanMs[kBfsVarAuto]);
    }
    // The instrumented pass: separate searches, stamps cost a store per level.
    const int levels = bg->levels[0];
    const int shown = levels < kBfsTableLevels ? levels : kBfsTableLevels;
    for (int var = 0; var < kBfsVarCount; ++var) {
        if (!res->ok[var]) continue;
        BfsCtx ctx;
        ctx.g = b;
        ctx.variant = var;
        ctx.source = bg->roots[0];
        ctx.clock = b->clock;
        launchBfs(&ctx);
        CUDA_CHECK(cudaDeviceSynchronize());
        CUDA_CHECK(cudaMemcpy(b->hostClock, b->clock, ((size_t)levels + 1) * sizeof(unsigned long long),
                              cudaMemcpyDeviceToHost));
        for (int l = 0; l < shown; ++l) levelMs[var][l] = (double)(b->hostClock[l + 1] - b->hostClock[l]) * 1e-6;
    }
    printf("  per level, root %d (instrumented pass: a device-clock stamp after each level; the times above are from searches without stamps)\n",
           bg->roots[0]);
    for (int l = 0; l < shown; ++l) {
        printf("~   level %3d: day-38 %8.4f ms, push %8.4f ms, pull %8.4f ms, auto %8.4f ms\n", l,
               res->ok[0] ? levelMs[0][l] : 0.0, res->ok[1] ? levelMs[1][l] : 0.0, res->ok[2] ? levelMs[2][l] : 0.0,
               res->ok[3] ? levelMs[3][l] : 0.0);
    }
    if (levels > shown) printf("  (levels %d to %d not shown)\n", shown, levels - 1);
    if (plotFig != NULL) {
        printf("plotspec: %s | line | DB-BFS per-level time by path, %s, root %d (instrumented pass) | level | ms\n", plotFig,
               bg->name, bg->roots[0]);
        for (int var = 0; var < kBfsVarCount; ++var) {
            if (!res->ok[var]) continue;
            for (int l = 0; l < shown; ++l) printf("~ plot: %s | %s | %d | %.4f\n", plotFig, kBfsVarNames[var], l, levelMs[var][l]);
        }
    }
    return failures;
}

// Checked call on a poisoned y, then the timed calls, then the output of
// the last timed call is checked again. Returns the mean ms (0 when the
// first check failed: a wrong path is not timed) and the faults found.
static float checkAndTime(const char* what, const Gpu* g, const Input* in, const XCase* xc, int v, RunCounts rc,
                          float* hostY, int* faults) {
    int parity = 0;
    LaunchCtx ctx;
    ctx.g = g;
    ctx.variant = v;
    ctx.parity = &parity;
    const int canaryStart = v == kVarCusparseBsr ? g->rowBlocks * kBlockDim : g->rows;
    CUDA_CHECK(cudaMemset(g->counters, 0, 2 * sizeof(unsigned long long)));
    poisonY(g, canaryStart);
    launchVariant(&ctx);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaGetLastError());
    *faults = judgeVariant(what, g, in, xc, v, parity, canaryStart, hostY);
    if (*faults != 0) return 0.0f;
    // Graph replay for every variant but the two whose point is how the host
    // issues a call; the conditional-node graph gets a graph of rc.runs calls.
    const int mode = v == kVarDbAutoStream || v == kVarDbAutoHost ? kTimeStream : kTimeGraph;
    const float ms = timeMs(launchVariant, &ctx, rc, mode, g->stream, v == kVarDbAutoGraph ? autoGraphCalls : NULL);
    *faults = judgeVariant(what, g, in, xc, v, parity, canaryStart, hostY);
    return ms;
}

// ---------------------------------------------------------------------------
// Flags, inputs, report
// ---------------------------------------------------------------------------

static int parseFlags(int argc, char** argv, Options* o) {
    memset(o, 0, sizeof(*o));
    for (int i = 1; i < argc; ++i) {
        const char* s = argv[i];
        if (strcmp(s, "--small") == 0) {
            o->small = 1;
        } else if (strcmp(s, "--density") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "flag --density: needs a comma-separated list of densities\n");
                return 1;
            }
            const char* list = argv[++i];
            o->densityCount = 0;
            const char* p = list;
            for (;;) {
                char tok[64];
                int n = 0;
                while (*p && *p != ',') {
                    if (n < 63) tok[n++] = *p;
                    ++p;
                }
                tok[n] = '\0';
                char* end = NULL;
                const double d = n > 0 ? strtod(tok, &end) : 0.0;
                if (n == 0 || end == tok || *end != '\0' || !isfinite(d)) {
                    fprintf(stderr, "flag --density: \"%s\" is not a number\n", tok);
                    return 1;
                }
                if (!(d > 0.0 && d <= 1.0)) {
                    fprintf(stderr, "flag --density: %s is outside (0, 1]\n", tok);
                    return 1;
                }
                if (o->densityCount == kMaxDensities) {
                    fprintf(stderr, "flag --density: at most %d densities\n", kMaxDensities);
                    return 1;
                }
                o->densities[o->densityCount++] = d;
                if (*p == '\0') break;
                ++p;
            }
        } else if (strcmp(s, "--roots") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "flag --roots: needs a number of Kronecker BFS roots\n");
                return 1;
            }
            const char* tok = argv[++i];
            char* end = NULL;
            errno = 0;
            const long v = strtol(tok, &end, 10);
            if (end == tok || *end != '\0' || errno != 0) {
                fprintf(stderr, "flag --roots: \"%s\" is not an integer\n", tok);
                return 1;
            }
            if (v < kBfsRootsMin || v > kBfsRootsMax) {
                fprintf(stderr, "flag --roots: %s is outside %d..%d (Graph500 asks for at least %d)\n", tok, kBfsRootsMin,
                        kBfsRootsMax, kBfsRootsMin);
                return 1;
            }
            o->roots = (int)v;
        } else if (s[0] == '-') {
            fprintf(stderr, "flag %s: unknown flag (known: --small, --density LIST, --roots N)\n", s);
            return 1;
        } else {
            if (o->pathCount == kMaxInputs) {
                fprintf(stderr, "flag %s: at most %d Matrix Market files\n", s, kMaxInputs);
                return 1;
            }
            o->paths[o->pathCount++] = s;
        }
    }
    if (o->roots == 0) o->roots = kBfsRootsDefault;
    if (o->densityCount == 0) {
        for (int k = 0; k < kDefaultDensityCount; ++k) o->densities[k] = kDefaultDensities[k];
        o->densityCount = kDefaultDensityCount;
    }
    return 0;
}

static void describeInput(Input* in, int policyCheckFailures[3]) {
    const Csr* a = &in->a;
    const DbFormat* f = &in->db[kPolicyAuto];
    printf("\ninput %s: %s\n", in->name, in->about);
    printf("  %d x %d, %d nonzeros; %d x %d blocks of 16x16, %d nonzero blocks (%.2f nonzeros per block)\n",
           a->rows, a->cols, a->nnz, f->rowBlocks, f->colBlocks, f->blocks,
           f->blocks > 0 ? (double)a->nnz / f->blocks : 0.0);
    printf("  block types (auto), blocks and share of nonzeros:");
    for (int t = 0; t < kTypeCount; ++t) {
        printf(" %s %lld (%.1f%%)%s", kTypeNames[t], f->typeBlocks[t],
               100.0 * (double)f->typeNnz[t] / (a->nnz > 0 ? a->nnz : 1), t + 1 < kTypeCount ? "," : "\n");
    }
    in->csrBytes = 4LL * (a->rows + 1) + 8LL * a->nnz;
    in->cscBytes = 4LL * (a->cols + 1) + 8LL * a->nnz;
    for (int p = 0; p < kPolicyCount; ++p) in->dbBytes[p] = dbFormatBytes(&in->db[p]);
    const long long views = dbViewBytes(f);
    printf("  bytes: CSR %lld, CSR+CSC %lld, DB %lld (views %lld, descriptors %lld, payload %lld)\n",
           in->csrBytes, in->csrBytes + in->cscBytes, in->dbBytes[0], views, 16LL * f->blocks,
           4LL * f->payloadWords);
    printf("  DB = %.3f of CSR+CSC, %.3f of CSR; all-COO DB %.3f, all-CSR DB %.3f of CSR+CSC\n",
           (double)in->dbBytes[0] / (in->csrBytes + in->cscBytes), (double)in->dbBytes[0] / in->csrBytes,
           (double)in->dbBytes[1] / (in->csrBytes + in->cscBytes),
           (double)in->dbBytes[2] / (in->csrBytes + in->cscBytes));
    printf("  pull schedule, segments of weight %d: %d (auto), %d (all-COO), %d (all-CSR); %lld bytes, not counted above\n",
           f->segmentWeight, in->db[0].segmentCount, in->db[1].segmentCount, in->db[2].segmentCount,
           16LL * in->db[0].segmentCount + 4LL * (f->rowBlocks + 1));
    printf("  push task ranges: %s; ", f->lightMatrix ? "whole passes of 32 tasks (light matrix)"
                                                        : "tasks / warps, the shortest (heavy matrix)");
    if (f->columnGroup > 0) {
        printf("column walk (ablation): %d lanes a column block, the fullest holds %d blocks\n", f->columnGroup,
               f->longestColumn);
    } else {
        printf("column walk (ablation): not run, the fullest column block holds %d blocks\n", f->longestColumn);
    }
    int bad = 0;
    for (int p = 0; p < kPolicyCount; ++p) bad += policyCheckFailures[p];
    if (bad == 0) {
        printf("  format check: both views rebuild A bit for bit, for all %d layouts\n", kPolicyCount);
    } else {
        printf("  format check: FAILED for %d layout(s)\n", bad);
    }
}

static void prepareCases(Input* in, const Options* o) {
    in->caseCount = 0;
    for (int pat = 0; pat < kPatternCount; ++pat) {
        for (int k = 0; k < o->densityCount; ++k) {
            XCase* xc = &in->cases[in->caseCount++];
            memset(xc, 0, sizeof(*xc));
            makeVector(in, pat, o->densities[k], xc);
            analyseVector(in, xc);
            cpuReference(&in->a, xc);
            const DbFormat* f = &in->db[0];
            printf("  x %-9s d=%-7g %9d nonzeros in %8d of %8d blocks (xb %.5f); push tasks %lld of %d blocks (%.3f), %lld products\n",
                   kPatternNames[pat], xc->density, xc->nonzeros, xc->activeBlocks, f->colBlocks,
                   (double)xc->activeBlocks / f->colBlocks, xc->pushTasks, f->blocks,
                   f->blocks > 0 ? (double)xc->pushTasks / f->blocks : 0.0, xc->products);
            printf("    paper rule (xb < %.2f) -> %s; work rule (tasks < %.2f of blocks, %s matrix) -> %s, which DB auto follows\n",
                   kTh3, xc->paperPush ? "push" : "pull", f->lightMatrix ? kPushTaskShareLight : kPushTaskShareHeavy,
                   f->lightMatrix ? "light" : "heavy", xc->pushChosen ? "push" : "pull");
            printf("    reference: %d nonzero rows, sum of y %.6e\n", xc->rowsNonzero, xc->sumWant);
        }
    }
}

static int loadInput(Input* in, int kind, const char* path, int small) {
    memset(in, 0, sizeof(*in));
    if (kind == 0) {
        snprintf(in->name, sizeof(in->name), "%s", path);
        if (readMatrixMarket(path, &in->a)) return 1;
        snprintf(in->about, sizeof(in->about), "Matrix Market file");
        if (strcmp(path, kWordsPath) == 0) {
            snprintf(in->name, sizeof(in->name), "words");
            snprintf(in->about, sizeof(in->about), "%s, the CUDA word graph (a real, skewed graph)", kWordsPath);
        }
    } else if (kind == 1) {
        const int side = small ? kFeSideSmall : kFeSide;
        snprintf(in->name, sizeof(in->name), "fe-mesh");
        snprintf(in->about, sizeof(in->about), "3D mesh %d^3 nodes, %d unknowns per node, 27-point coupling", side, kFeUnknowns);
        generateFeMesh(side, &in->a);
    } else if (kind == 2) {
        const int n = small ? kBandRowsSmall : kBandRows;
        snprintf(in->name, sizeof(in->name), "banded");
        snprintf(in->about, sizeof(in->about), "%d rows, half-width %d, half of the band filled", n, kBandHalfWidth);
        generateBanded(n, &in->a);
    } else {
        const int scale = small ? kKronScaleSmall : kKronScale;
        snprintf(in->name, sizeof(in->name), "kronecker");
        snprintf(in->about, sizeof(in->about), "Graph500-style Kronecker graph, scale %d, edge factor %d, labels shuffled", scale, kKronEdgeFactor);
        generateKronecker(scale, &in->a);
    }
    return 0;
}

// The CSC, the DB format in every layout policy, the host check of each,
// and the description. Returns the number of layouts that failed the check.
static int convertInput(Input* in, int segmentWeight) {
    transposeCsr(&in->a, &in->at);
    int policyFailures[3] = {0, 0, 0}, failures = 0;
    BlockOrder order;
    orderByBlock(&in->a, &order);
    for (int p = 0; p < kPolicyCount; ++p) {
        buildDb(&in->a, &order, p, segmentWeight, &in->db[p]);
        policyFailures[p] = checkDbFormat(in->name, kPolicyNames[p], &in->a, &in->at, &in->db[p]);
        failures += policyFailures[p];
    }
    free(order.order);
    free(order.localRow);
    describeInput(in, policyFailures);
    return failures;
}

// Builds one BFS graph from a square matrix (A + A^T, no diagonal), its DB
// format (auto layouts), its roots, and every root's CPU search; prints what
// the host knows, including the per-level path each rule would take.
static int prepareBfsGraph(BfsGraph* bg, const char* name, const char* about, const Csr* a, const Csr* at,
                           int rootCount, int segmentWeight, int graph500, long long pushWave) {
    memset(bg, 0, sizeof(*bg));
    bg->pushWave = pushWave;
    snprintf(bg->name, sizeof(bg->name), "%s", name);
    snprintf(bg->about, sizeof(bg->about), "%s", about);
    symmetrizePattern(a, at, &bg->adj);
    bg->graph500 = graph500;
    BlockOrder order;
    orderByBlock(&bg->adj, &order);
    buildDb(&bg->adj, &order, kPolicyAuto, segmentWeight, &bg->db);
    free(order.order);
    free(order.localRow);
    const int bad = checkDbFormat(bg->name, "bfs", &bg->adj, &bg->adj, &bg->db);  // symmetric: A^T = A
    pickRoots(bg, rootCount);
    const Csr* g = &bg->adj;
    const DbFormat* f = &bg->db;
    bg->dist = (int*)xmalloc((size_t)bg->rootCount * g->rows * sizeof(int) + 4);
    int* queue = (int*)xmalloc((size_t)g->rows * sizeof(int));
    int* stamp = (int*)xmalloc((size_t)f->colBlocks * sizeof(int) + 4);
    for (int r = 0; r < bg->rootCount; ++r) cpuBfs(bg, r, queue, stamp);
    free(queue);
    free(stamp);

    printf("\nbfs graph %s: %s\n", bg->name, bg->about);
    int widest = 0, unreachable = 0;
    for (int rb = 0; rb < f->rowBlocks; ++rb) {
        if (f->blockRowPtr[rb + 1] - f->blockRowPtr[rb] > widest) widest = f->blockRowPtr[rb + 1] - f->blockRowPtr[rb];
    }
    for (int v = 0; v < g->rows; ++v) unreachable += hasNoEdges(g, v);
    printf("  %d vertices, %lld undirected edges (A + A^T, self loops dropped); %d nonzero blocks (%.2f entries per block), %s format check %s\n",
           g->rows, (long long)g->nnz / 2, f->blocks, f->blocks > 0 ? (double)g->nnz / f->blocks : 0.0,
           f->lightMatrix ? "light," : "heavy,", bad ? "FAILED" : "passed");
    printf("  row blocks: %d, the largest holds %d blocks (mean %.1f); %d vertices without edges start out visited\n",
           f->rowBlocks, widest, f->rowBlocks > 0 ? (double)f->blocks / f->rowBlocks : 0.0, unreachable);
    printf("  roots (seed %#llx, degree >= 1):", (unsigned long long)kSeedRoots);
    for (int r = 0; r < bg->rootCount; ++r) printf(" %d", bg->roots[r]);
    printf("\n  CPU BFS per root, levels / edges in the component:");
    for (int r = 0; r < bg->rootCount; ++r) printf(" %d/%lld", bg->levels[r], bg->edges[r]);
    printf("\n");
    // Beamer's rule needs degree sums per level: of the frontier, and of all
    // vertices not reached before this level.
    const int levels = bg->levels[0];
    const int* dist = bg->dist;
    double* degLevel = (double*)xcalloc((size_t)levels, sizeof(double));
    double totalDeg = 0.0;
    for (int v = 0; v < g->rows; ++v) {
        const double deg = g->rowPtr[v + 1] - g->rowPtr[v];
        totalDeg += deg;
        if (dist[v] >= 0) degLevel[dist[v]] += deg;
    }
    printf("  per level, root %d: path by the rule (push when tasks < %lld, one pass, or < %.1f of the open blocks), the paper's (xb < %.2f), Beamer's (alpha %g, beta %g)\n",
           bg->roots[0], bg->pushWave, kBfsPushShare, kTh3, kBeamerAlpha, kBeamerBeta);
    printf("  %5s %9s %9s %8s %10s %10s %7s %5s %5s %6s\n", "level", "frontier", "blocks", "xb", "tasks", "open",
           "t/open", "rule", "paper", "Beamer");
    int beamerPull = 0, pushLevels = 0, hidden = 0;
    double seenDeg = 0.0;
    for (int l = 0; l < levels; ++l) {
        const int nf = bg->levelVertices[0][l], act = bg->levelActive[0][l];
        const long long tasks = bg->levelTasks[0][l], open = bg->levelOpen[0][l];
        const double mf = degLevel[l], mu = totalDeg - seenDeg;
        seenDeg += degLevel[l];
        if (!beamerPull && mf > mu / kBeamerAlpha) beamerPull = 1;
        else if (beamerPull && nf < g->rows / kBeamerBeta) beamerPull = 0;
        const int rule = chooseBfsPush(tasks, open, bg->pushWave);
        pushLevels += rule;
        if (l < kBfsTableLevels) {
            printf("  %5d %9d %9d %8.5f %10lld %10lld %7.4f %5s %5s %6s\n", l, nf, act, (double)act / f->colBlocks,
                   tasks, open, open > 0 ? (double)tasks / open : 0.0, rule ? "push" : "pull",
                   choosePush(act, f->colBlocks) ? "push" : "pull", beamerPull ? "pull" : "push");
        } else {
            ++hidden;
        }
    }
    if (hidden > 0) printf("  (%d more levels not shown)\n", hidden);
    printf("  the rule takes push on %d of %d levels\n", pushLevels, levels);
    free(degLevel);
    return bad;
}

// A decoding layer as an input of its own: W from a fixed seed, pruned,
// converted once to the DB format; one x, kept by magnitude.
static int prepareDecodeInput(Input* in, int rows, int cols, uint64_t seed, int segmentWeight, float** dense) {
    memset(in, 0, sizeof(*in));
    snprintf(in->name, sizeof(in->name), "decode-%dx%d", rows, cols);
    snprintf(in->about, sizeof(in->about),
             "W %d x %d drawn from seed %#llx (no model weights), %.0f%% pruned by magnitude", rows, cols,
             (unsigned long long)seed, 100.0 * kDecodePrune);
    generateDecodeLayer(rows, cols, seed, &in->a, dense);
    const int failures = convertInput(in, segmentWeight);
    XCase* xc = &in->cases[0];
    in->caseCount = 1;
    makeDecodeVector(in, xc);
    analyseVector(in, xc);
    cpuReference(&in->a, xc);
    const DbFormat* f = &in->db[0];
    printf("  x: %d of %d entries kept by magnitude (top %.0f%%), in %d of %d blocks (xb %.5f); push tasks %lld of %d blocks (%.3f) -> %s\n",
           xc->nonzeros, cols, 100.0 * kDecodeKeepX, xc->activeBlocks, f->colBlocks,
           (double)xc->activeBlocks / f->colBlocks, xc->pushTasks, f->blocks, (double)xc->pushTasks / f->blocks,
           xc->pushChosen ? "push" : "pull");
    printf("    reference: %d nonzero rows, sum of y %.6e\n", xc->rowsNonzero, xc->sumWant);
    return failures;
}

static double geomean(const double* v, int n) {
    if (n == 0) return nan("");
    double s = 0.0;
    for (int i = 0; i < n; ++i) s += log(v[i]);
    return exp(s / n);
}

int main(int argc, char** argv) {
    Options opt;
    if (parseFlags(argc, argv, &opt)) return EXIT_FAILURE;

    // ---- load and generate ----
    static Input inputs[8];
    int inputCount = 0;
    if (opt.pathCount > 0) {
        for (int k = 0; k < opt.pathCount; ++k) {
            if (loadInput(&inputs[inputCount], 0, opt.paths[k], opt.small)) {
                for (int j = 0; j < inputCount; ++j) freeInput(&inputs[j]);
                return EXIT_FAILURE;
            }
            ++inputCount;
        }
    } else {
        if (loadInput(&inputs[inputCount], 0, kWordsPath, opt.small)) return EXIT_FAILURE;
        ++inputCount;
        for (int kind = 1; kind <= 3; ++kind) {
            loadInput(&inputs[inputCount], kind, NULL, opt.small);
            ++inputCount;
        }
    }

    printf("Day 40: SpMSpV on a dual-view blocked (DB) matrix, push vs pull, against cuSPARSE\n");
    printf("blocks 16x16; th0 %d, th1 %d, th2 %.1f, th3 %.2f; x positions from seed %d; densities",
           kTh0, kTh1, kTh2, kTh3, (int)kSeedX);
    for (int k = 0; k < opt.densityCount; ++k) printf(" %g", opt.densities[k]);
    printf("\n");

    // ---- host analysis: formats, their check, vectors, references ----
    int failures = 0;
    for (int i = 0; i < inputCount; ++i) {
        Input* in = &inputs[i];
        failures += convertInput(in, opt.small ? kSegmentWeightSmall : kSegmentWeight);
        prepareCases(in, &opt);
    }
    // ---- host analysis, part 2: BFS graphs and decoding layers ----
    printf("\nPart 2: DB-BFS over the same format against a day-38-style BFS, and a sparse decoding layer\n");
    const int segmentWeight = opt.small ? kSegmentWeightSmall : kSegmentWeight;
    static BfsGraph graphs[kMaxBfsGraphs];
    int graphCount = 0;
    const long long pushWave = opt.small ? (long long)kSmallGridCtas * kBfsThreads : kBfsPushWave;
    for (int i = 0; i < inputCount; ++i) {
        const Input* in = &inputs[i];
        if (in->a.rows != in->a.cols) {
            printf("\nbfs graph %s: not square, so not a graph; no BFS on it\n", in->name);
            continue;
        }
        if (opt.pathCount == 0 && strcmp(in->name, "kronecker") == 0) continue;  // the scale-21 graph below stands for it
        failures += prepareBfsGraph(&graphs[graphCount++], in->name, in->about, &in->a, &in->at,
                                    opt.small ? kBfsRootsSmall : kBfsRootsOther, segmentWeight, 0, pushWave);
    }
    if (opt.pathCount == 0) {
        const int scale = opt.small ? kBfsKronScaleSmall : kBfsKronScale;
        Csr kron;
        generateKronecker(scale, &kron);
        char name[32], about[160];
        snprintf(name, sizeof(name), "kronecker-s%d", scale);
        snprintf(about, sizeof(about), "Graph500-style Kronecker graph, scale %d, edge factor %d, labels shuffled", scale,
                 kKronEdgeFactor);
        // The generator stores both directions, so A is its own transpose.
        failures += prepareBfsGraph(&graphs[graphCount++], name, about, &kron, &kron,
                                    opt.small ? kBfsRootsSmall : opt.roots, segmentWeight, 1, pushWave);
        freeCsr(&kron);
    }
    static Input decode[kDecodeShapes];
    float* denseW[kDecodeShapes];
    for (int d = 0; d < kDecodeShapes; ++d) {
        const int shrink = opt.small ? kDecodeShrinkSmall : 1;
        failures += prepareDecodeInput(&decode[d], kDecodeRows[d] / shrink, kDecodeCols[d] / shrink, kSeedDecode + d,
                                       segmentWeight, &denseW[d]);
    }
    printf("  no model weights are used: W is random and pruned by magnitude, so the decoding figures show the kernels\n"
           "  on a decoding step's shapes and sparsities, not a model's accuracy nor the structure of real pruned weights\n");

    double memRatio[8];
    for (int i = 0; i < inputCount; ++i) {
        memRatio[i] = (double)inputs[i].dbBytes[0] / (inputs[i].csrBytes + inputs[i].cscBytes);
    }

    // ---- first CUDA call ----
    int deviceCount = 0;
    const cudaError_t probe = cudaGetDeviceCount(&deviceCount);
    if (probe != cudaSuccess || deviceCount == 0) {
        printf("no CUDA device found (%s): the host part above ran, the GPU part did not\n",
               probe != cudaSuccess ? cudaGetErrorString(probe) : "0 devices");
        for (int i = 0; i < inputCount; ++i) freeInput(&inputs[i]);
        for (int k = 0; k < graphCount; ++k) freeBfsGraph(&graphs[k]);
        for (int d = 0; d < kDecodeShapes; ++d) {
            freeInput(&decode[d]);
            free(denseW[d]);
        }
        return 2;
    }

    // ---- GPU part ----
    RunCounts runCounts;
    runCounts.warmups = opt.small ? kSmallWarmupRuns : kWarmupRuns;
    runCounts.runs = opt.small ? kSmallTimedRuns : kTimedRuns;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    int driver = 0, runtime = 0;
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    printf("\n~ GPU: {%s}, compute capability %d.%d, %d SMs, {driver %d.%d, runtime %d.%d}\n", prop.name,
           prop.major, prop.minor, prop.multiProcessorCount, driver / 1000, (driver % 1000) / 10,
           runtime / 1000, (runtime % 1000) / 10);
    {
        void* src = NULL;
        void* dst = NULL;
        CUDA_CHECK(cudaMalloc(&src, (size_t)kCopyBytes));
        CUDA_CHECK(cudaMalloc(&dst, (size_t)kCopyBytes));
        CUDA_CHECK(cudaMemset(src, 1, (size_t)kCopyBytes));
        cudaEvent_t e0, e1;
        CUDA_CHECK(cudaEventCreate(&e0));
        CUDA_CHECK(cudaEventCreate(&e1));
        for (int r = 0; r < kWarmupRuns; ++r) CUDA_CHECK(cudaMemcpy(dst, src, (size_t)kCopyBytes, cudaMemcpyDeviceToDevice));
        CUDA_CHECK(cudaEventRecord(e0));
        for (int r = 0; r < kTimedRuns; ++r) CUDA_CHECK(cudaMemcpyAsync(dst, src, (size_t)kCopyBytes, cudaMemcpyDeviceToDevice));
        CUDA_CHECK(cudaEventRecord(e1));
        CUDA_CHECK(cudaEventSynchronize(e1));
        float ms = 0.0f;
        CUDA_CHECK(cudaEventElapsedTime(&ms, e0, e1));
        printf("~ device-to-device copy: %.0f GB/s (bytes read + written), the ceiling for the GB/s below\n",
               2.0 * kCopyBytes * kTimedRuns / (ms * 1e-3) / 1e9);
        CUDA_CHECK(cudaEventDestroy(e0));
        CUDA_CHECK(cudaEventDestroy(e1));
        CUDA_CHECK(cudaFree(src));
        CUDA_CHECK(cudaFree(dst));
    }
    // One grid for dbPull, dbPush and dbAuto, so that DB auto and the single
    // paths it is measured against run on the same number of warps.
    int ctasPerSm = 0;
    {
        int pull = 0, push = 0, both = 0;
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&pull, dbPull, kPullThreads, 0));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&push, dbPush, kPushThreads, 0));
        CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&both, dbAuto<kAddRed>, kPullThreads, 0));
        printf("~ resident %d-thread blocks per SM (occupancy API): dbPull %d, dbPush %d, dbAuto %d; all three run the smallest\n",
               kPullThreads, pull, push, both);
        ctasPerSm = pull < push ? pull : push;
        if (both < ctasPerSm) ctasPerSm = both;
        if (ctasPerSm < 1) ctasPerSm = 1;
    }
    printf("times: the mean of %d calls replayed from one CUDA graph (the GPU's time for a call), after %d warm-up "
           "calls;\n  \"DB auto, stream\" and \"DB auto, host picks\": %d calls launched one by one from the host\n",
           runCounts.runs, runCounts.warmups, runCounts.runs);

    // Timing results for the headlines: [input][case][variant], ms (0 = not run).
    static float timing[kMaxInputs][2 * kMaxDensities][kVarCount];
    memset(timing, 0, sizeof(timing));
    float* hostY = NULL;
    int hostYCap = 0;
    for (int i = 0; i < inputCount; ++i) {
        Input* in = &inputs[i];
        Gpu g;
        setupGpu(in, NULL, prop.multiProcessorCount, ctasPerSm, opt.small, &g);
        if (g.yAllocated > hostYCap) {
            free(hostY);
            hostYCap = g.yAllocated;
            hostY = (float*)xmalloc((size_t)hostYCap * sizeof(float));
        }
        const double flops = 2.0 * in->a.nnz;
        const double csrModelBytes = 8.0 * in->a.nnz + 4.0 * (in->a.rows + 1) + 4.0 * in->a.cols + 4.0 * in->a.rows;
        printf("\n%s: %d nonzeros; GFLOP/s count 2 x nonzeros; cuSPARSE BSR %s\n", in->name, in->a.nnz,
               g.haveBsr ? "included" : "skipped (over 4 GB of block values)");
        for (int c = 0; c < in->caseCount; ++c) {
            XCase* xc = &in->cases[c];
            CUDA_CHECK(cudaMemcpy(g.x, xc->x, (size_t)g.colBlocks * kBlockDim * sizeof(float), cudaMemcpyHostToDevice));
            const int firstDensity = xc->density == opt.densities[0];
            printf("%s, x %s d=%g: %s path (paper rule: %s)\n", in->name, kPatternNames[xc->pattern], xc->density,
                   xc->pushChosen ? "push" : "pull", xc->paperPush ? "push" : "pull");
            int checked = 0, wrong = 0;
            float autoMs = 0.0f, csrMs = 0.0f;
            for (int v = 0; v < kVarCount; ++v) {
                if (!variantRuns(v, xc, &g, firstDensity)) continue;
                char what[256];
                snprintf(what, sizeof(what), "%.90s, x %.10s d=%g, %.30s", in->name, kPatternNames[xc->pattern], xc->density,
                         kVarNames[v]);
                int faults = 0;
                timing[i][c][v] = checkAndTime(what, &g, in, xc, v, runCounts, hostY, &faults);
                ++checked;
                if (faults > 0) {
                    ++wrong;
                    timing[i][c][v] = 0.0f;
                    printf("  %-22s wrong result, not timed (see stderr)\n", kVarNames[v]);
                    continue;
                }
                const float ms = timing[i][c][v];
                if (v == kVarCusparseCsr) csrMs = ms;
                if (v == kVarDbAuto) autoMs = ms;
                if (v == kVarMeta) {
                    printf("~   %-22s %9.4f ms\n", kVarNames[v], ms);
                } else {
                    printf("~   %-22s %9.4f ms %9.1f GFLOP/s %8.2fx cuSPARSE CSR\n", kVarNames[v], ms,
                           flops / (ms * 1e-3) / 1e9, csrMs > 0.0f ? csrMs / ms : 0.0);
                }
                if (v == kVarCusparseCsr) {
                    printf("~   %-22s %9.1f GB/s by the CSR model (8 bytes a nonzero + x + y + row pointers)\n", "",
                           csrModelBytes / (ms * 1e-3) / 1e9);
                }
            }
            if (autoMs > 0.0f && timing[i][c][kVarMeta] > 0.0f) {
                printf("~   metadata step = %.1f%% of DB auto\n", 100.0 * timing[i][c][kVarMeta] / autoMs);
            }
            failures += wrong;
            if (wrong == 0) {
                printf("  checks: %d paths match the CPU before and after timing (rows, checksum, canary; metadata exactly)\n",
                       checked);
            } else {
                printf("  checks: %d of %d paths wrong\n", wrong, checked);
            }
        }
        freeGpu(&g);
    }

    // ---- part 2 on the GPU: BFS ----
    RunCounts bfsRuns;
    bfsRuns.warmups = 1;  // a search is milliseconds: one warm-up loads both loop kernels
    bfsRuns.runs = opt.small ? kSmallTimedRuns : kBfsTimedRuns;
    static BfsResult bfsRes[kMaxBfsGraphs];
    int plotGraph = 0;
    for (int k = 0; k < graphCount; ++k) {
        if (graphs[k].graph500) plotGraph = k;
    }
    for (int k = 0; k < graphCount; ++k) {
        BfsGpu b;
        setupBfsGpu(&graphs[k], prop.multiProcessorCount, opt.small, &b);
        failures += runBfsGraph(&graphs[k], &b, bfsRuns, &bfsRes[k], k == plotGraph ? "bfs-levels" : NULL);
        freeBfsGpu(&b);
    }

    // ---- part 2 on the GPU: decoding layers ----
    double decodeRatio[kDecodeShapes];
    int decodeCount = 0;
    for (int d = 0; d < kDecodeShapes; ++d) {
        Input* in = &decode[d];
        XCase* xc = &in->cases[0];
        Gpu g;
        setupGpu(in, denseW[d], prop.multiProcessorCount, ctasPerSm, opt.small, &g);
        if (g.yAllocated > hostYCap) {
            free(hostY);
            hostYCap = g.yAllocated;
            hostY = (float*)xmalloc((size_t)hostYCap * sizeof(float));
        }
        CUDA_CHECK(cudaMemcpy(g.x, xc->x, (size_t)g.colBlocks * kBlockDim * sizeof(float), cudaMemcpyHostToDevice));
        printf("\n%s: y = W x, %d nonzero weights, %d nonzero x entries; cuBLAS on the dense W with the zeros in place\n",
               in->name, in->a.nnz, xc->nonzeros);
        float gemvMs = 0.0f, autoMs = 0.0f;
        int wrong = 0, checked = 0;
        const int order[5] = {kVarCublasGemv, kVarCusparseCsr, kVarDbPush, kVarDbPull, kVarDbAuto};
        for (int k = 0; k < 5; ++k) {
            const int v = order[k];
            char what[192];
            snprintf(what, sizeof(what), "%.90s, %.30s", in->name, kVarNames[v]);
            int faults = 0;
            const float ms = checkAndTime(what, &g, in, xc, v, runCounts, hostY, &faults);
            ++checked;
            if (faults > 0) {
                ++wrong;
                printf("  %-22s wrong result, not timed (see stderr)\n", kVarNames[v]);
                continue;
            }
            if (v == kVarCublasGemv) gemvMs = ms;
            if (v == kVarDbAuto) autoMs = ms;
            printf("~   %-22s %9.4f ms %8.2fx cuBLAS SGEMV\n", kVarNames[v], ms, gemvMs > 0.0f ? gemvMs / ms : 0.0);
        }
        failures += wrong;
        if (wrong == 0) {
            printf("  checks: %d paths match the CPU before and after timing (rows in double with a derived tolerance, checksum, canary)\n",
                   checked);
        }
        if (gemvMs > 0.0f && autoMs > 0.0f) decodeRatio[decodeCount++] = gemvMs / autoMs;
        freeGpu(&g);
    }
    free(hostY);

    // ---- plots and headlines ----
    int largeSet[8], largeCount = 0;
    for (int i = 0; i < inputCount; ++i) {
        if (inputs[i].a.nnz >= kLargeNnz) largeSet[largeCount++] = i;
    }
    if (largeCount == 0) {
        for (int i = 0; i < inputCount; ++i) largeSet[largeCount++] = i;
    }
    printf("\ntime ratios below use the inputs with at least %lld nonzeros (all inputs if none):", kLargeNnz);
    for (int k = 0; k < largeCount; ++k) printf(" %s", inputs[largeSet[k]].name);
    printf("\n");
    printf("plotspec: speedup-vs-density | logx | DB auto over cuSPARSE CSR SpMV, x random | x density | speedup (x)\n");
    for (int i = 0; i < inputCount; ++i) {
        for (int c = 0; c < inputs[i].caseCount; ++c) {
            const XCase* xc = &inputs[i].cases[c];
            if (xc->pattern != kPatternRandom) continue;
            if (timing[i][c][kVarDbAuto] > 0.0f && timing[i][c][kVarCusparseCsr] > 0.0f) {
                printf("~ plot: speedup-vs-density | %s | %g | %.3f\n", inputs[i].name, xc->density,
                       timing[i][c][kVarCusparseCsr] / timing[i][c][kVarDbAuto]);
            }
        }
    }
    printf("plotspec: format-ablation | bar | DB pull at the first density, low-level layouts (paper Fig. 10) | input | GFLOP/s\n");
    for (int i = 0; i < inputCount; ++i) {
        for (int c = 0; c < inputs[i].caseCount; ++c) {
            const XCase* xc = &inputs[i].cases[c];
            if (xc->pattern != kPatternRandom || xc->density != opt.densities[0]) continue;
            const int vs[3] = {kVarDbPullCoo, kVarDbPullCsr, kVarDbPull};
            const char* names[3] = {"all-COO", "all-CSR", "auto"};
            for (int k = 0; k < 3; ++k) {
                if (timing[i][c][vs[k]] > 0.0f) {
                    printf("~ plot: format-ablation | %s | %s | %.1f\n", names[k], inputs[i].name,
                           2.0 * inputs[i].a.nnz / (timing[i][c][vs[k]] * 1e-3) / 1e9);
                }
            }
        }
    }

    const double headlineDensities[2] = {0.01, 0.0001};
    const char* headlineNames[2] = {"auto_vs_cusparse_d0.01", "auto_vs_cusparse_d0.0001"};
    for (int h = 0; h < 2; ++h) {
        double ratios[8];
        int n = 0;
        for (int k = 0; k < largeCount; ++k) {
            const int i = largeSet[k];
            for (int c = 0; c < inputs[i].caseCount; ++c) {
                const XCase* xc = &inputs[i].cases[c];
                if (xc->pattern == kPatternRandom && xc->density == headlineDensities[h] &&
                    timing[i][c][kVarDbAuto] > 0.0f && timing[i][c][kVarCusparseCsr] > 0.0f) {
                    ratios[n++] = timing[i][c][kVarCusparseCsr] / timing[i][c][kVarDbAuto];
                }
            }
        }
        if (n > 0) printf("headline: %s = %.2f\n", headlineNames[h], geomean(ratios, n));
    }
    {
        double worst = -1.0;
        for (int k = 0; k < largeCount; ++k) {
            const int i = largeSet[k];
            for (int c = 0; c < inputs[i].caseCount; ++c) {
                const float* t = timing[i][c];
                if (inputs[i].cases[c].pattern != kPatternRandom) continue;
                if (t[kVarDbAuto] > 0.0f && t[kVarDbPush] > 0.0f && t[kVarDbPull] > 0.0f) {
                    const float best = t[kVarDbPush] < t[kVarDbPull] ? t[kVarDbPush] : t[kVarDbPull];
                    const double r = best / t[kVarDbAuto];
                    if (worst < 0.0 || r < worst) worst = r;
                }
            }
        }
        if (worst >= 0.0) printf("headline: auto_vs_best_single_path_min = %.2f\n", worst);
    }
    printf("headline: memory_vs_csr_csc = %.2f\n", geomean(memRatio, inputCount));
    {
        double worst = -1.0;
        for (int k = 0; k < graphCount; ++k) {
            const BfsResult* r = &bfsRes[k];
            const int ok = r->ok[kBfsVarWarp] && r->ok[kBfsVarAuto];
            if (ok && graphs[k].graph500) {
                printf("headline: dbbfs_vs_day38_kron21 = %.2f\n", r->meanMs[kBfsVarWarp] / r->meanMs[kBfsVarAuto]);
            }
            if (ok && strcmp(graphs[k].name, "fe-mesh") == 0) {
                printf("headline: dbbfs_vs_day38_mesh = %.2f\n", r->meanMs[kBfsVarWarp] / r->meanMs[kBfsVarAuto]);
            }
            if (r->ok[kBfsVarPush] && r->ok[kBfsVarPull] && r->ok[kBfsVarAuto]) {
                const double best = r->meanMs[kBfsVarPush] < r->meanMs[kBfsVarPull] ? r->meanMs[kBfsVarPush] : r->meanMs[kBfsVarPull];
                const double ratio = best / r->meanMs[kBfsVarAuto];
                if (worst < 0.0 || ratio < worst) worst = ratio;
            }
        }
        if (worst >= 0.0) printf("headline: dbbfs_auto_vs_best_single_min = %.2f\n", worst);
        for (int k = 0; k < graphCount; ++k) {
            if (graphs[k].graph500 && bfsRes[k].ok[kBfsVarAuto]) {
                printf("headline: dbbfs_kron21_gteps = %.3f\n", bfsRes[k].gteps[kBfsVarAuto]);
            }
        }
        if (decodeCount > 0) printf("headline: decode_vs_cublas_gemv = %.2f\n", geomean(decodeRatio, decodeCount));
    }

    for (int i = 0; i < inputCount; ++i) freeInput(&inputs[i]);
    for (int k = 0; k < graphCount; ++k) freeBfsGraph(&graphs[k]);
    for (int d = 0; d < kDecodeShapes; ++d) {
        freeInput(&decode[d]);
        free(denseW[d]);
    }
    if (failures > 0) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        printf("FAIL\n");
        return EXIT_FAILURE;
    }
    printf("PASS\n");
    return EXIT_SUCCESS;
}
