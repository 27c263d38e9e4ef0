// Day 38: breadth-first search, one level at a time, on the CUDA word graph.
//
// A level-synchronous BFS expands the whole frontier of level L before it starts level L + 1.
// Two questions:
// 1. How should a frontier be laid onto threads (thread per vertex, warp per vertex,
//    edge-balanced), and where does a level's time go (the split, the edge reads, the visited
//    filter, the claims, the queue)?
// 2. Where does a small search's time go? A host loop pays a launch and a copy per level; device
//    loops keep the level loop on the GPU (one block, levels ending at __syncthreads; a
//    cooperative grid, at grid.sync()).
// Data: word-graph.txt, words of the CUDA Toolkit headers' comments, an edge where two sit side by
// side three times or more: very uneven degrees, and small. For scale, Graph500 Kronecker graphs,
// in GTEPS by the Graph500 rule.
// Build: nvcc -O3 -arch=sm_90 -o bfs bfs.cu
// clang-format off: the run lines are --help's text, one line each
// Run: ./bfs                        word graph + Kronecker scale 21, 16 roots (the verified run)
// Run: ./bfs --kron 22 --roots 32   another Kronecker scale (6 to 25) and root count (1 to 64)
// Run: ./bfs --small                small inputs (Kronecker 12, 4 roots), for compute-sanitizer
// Run: ./bfs FILE.mtx               a Matrix Market graph instead of the Kronecker one
// Run: ./bfs --words FILE           a graph in word-graph.txt's format instead of word-graph.txt
// Run: ./bfs --full                 the scaling run: Kronecker scales 18 to 23, 2 roots each
// Run: ./bfs --help                 this list (-h too)
// Full: ./bfs --full
// clang-format on
// Run it from this folder. Transcripts: evidence/run-*.txt and full-*.txt; evidence/notes.md: what
// was tried, and what it measured.

#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cooperative_groups.h>
#include <cuda_runtime.h>

// ---- Constants, each with its reason (the grid loop's are in its block, with the kernels) ----

static const char* const kGraphPath = "word-graph.txt";  // beside this file
// The header's run lines, for --help (make check compares the two).
// clang-format off
static const char* const kUsage =
    "usage:\n"
    "  ./bfs                        word graph + Kronecker scale 21, 16 roots (the verified run)\n"
    "  ./bfs --kron 22 --roots 32   another Kronecker scale (6 to 25) and root count (1 to 64)\n"
    "  ./bfs --small                small inputs (Kronecker 12, 4 roots), for compute-sanitizer\n"
    "  ./bfs FILE.mtx               a Matrix Market graph instead of the Kronecker one\n"
    "  ./bfs --words FILE           a graph in word-graph.txt's format instead of word-graph.txt\n"
    "  ./bfs --full                 the scaling run: Kronecker scales 18 to 23, 2 roots each\n"
    "  ./bfs --help                 this list (-h too)\n";
// clang-format on
static const int kLoopBlockThreads = 1024;  // the block loop takes the largest block there is
static const int kAloneWindows = 4;        // block loop: warp 0 takes a level alone up to 4 windows
static const int kLoopWindows = 2;         // block loop: windows of 32 edges a warp has in flight
static const int kMaxLabelLength = 63;     // the word-graph tool drops longer words
static const int kMaxCount = INT_MAX / 2;  // any graph's V, a word graph's E: 2V and 2E fit an int
// What a Matrix Market graph costs the host past the reader, per vertex and per stored entry: a
// bound with margin on the peaks measured (evidence/notes.md), checked before the graph is built.
static const double kHostBytesVertex = 160.0, kHostBytesEntry = 32.0;
// What a graph costs the GPU (uploadGraph's arrays), checked before the first of them: a vertex
// has a row offset, dist, its copy and a queue slot (4 bytes each), a bit in each of two visited
// bitmaps, a piece (8) and two counters (4 each): 32.25; a stored entry has a column (4) and its
// share of the pieces (8 / kPieceEdges): 4.03. Rounded up, which covers the few fixed words.
static const double kDeviceBytesVertex = 33.0, kDeviceBytesEntry = 5.0;
static const int kWarmupRuns = 3;     // lazy loading: each kernel's first launch pays its load
static const int kTimedRuns = 20;     // word-graph searches are short and noisy: 20 steady the mean
static const int kKronTimedRuns = 5;  // per root; 16 roots make 80 timed searches per mapping
static const int kSmallTimedRuns = 1;   // --small feeds the sanitizer, which slows kernels down
static const int kMaxTableLevels = 64;  // per-level tables stop here (a Kronecker search has 7)
static const int kHeavyDegree = 256;    // a heavy vertex has a block's worth of edges or more
// Graph500 Kronecker generator (Graph500 specification, section 3).
static const double kKronA = 0.57, kKronB = 0.19, kKronC = 0.19;  // D = 1 - A - B - C
static const int kKronEdgeFactor = 16;                            // generated edges per vertex
static const int kDefaultScale = 21;                              // 2^21 vertices: the verified run
static const int kSmallScale = 12;  // --small: 4096 vertices, small enough for racecheck
static const int kMinScale = 6;     // below 6 few roots have degree >= 1
static const int kMaxScale = 25;    // 2^25 * 16 * 2 adjacency entries fit an int
static const uint64_t kKronSeed = 0x5eed0038ULL;  // fixed: the same graph on every run
static const uint64_t kRootSeed = 0x0007ab1eULL;  // fixed: the same roots on every run
static const int kDefaultRoots = 16;  // Graph500 asks for 64; 16 keep the default run short
static const int kSmallRoots = 4;     // --small: roots enough to vary the search, few for racecheck
static const int kMaxRoots = 64;      // Graph500's number of roots
// The source rule's vertex and edge visits: every vertex a source up to the first (the smallest
// power of two that still searches every word of word-graph.txt); past it, sources drawn up to
// the second, so that the host part of any graph takes a search or a few, seconds at most.
static const long long kAllSourcesWork = 1LL << 27, kSampleWork = 1LL << 25;
// The GPU part's budget in level launches (a host loop's level is a launch and a copy; a device
// loop's, a barrier), both graphs together: at a host loop's cost per level (evidence/notes.md)
// it keeps a default run within the minute the course allows one.
static const long long kLevelBudget = 2000000;
// --full, the scaling run: Kronecker scales 18 to 23; 2 roots keep its CPU searches short.
static const int kSweepFirst = 18, kSweepLast = 23, kSweepRoots = 2;

// ---- Error macro: a byte-identical copy of common/cuda-check.h ----

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t status_ = (call);                                            \
        if (status_ != cudaSuccess) {                                            \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                    cudaGetErrorString(status_));                                \
            exit(EXIT_FAILURE);                                                  \
        }                                                                        \
    } while (0)

// ---- Data structures (the search kernels' own are in the grid loop's block) ----

// An undirected graph in CSR: v's neighbours are colIndices[rowOffsets[v] .. rowOffsets[v+1]),
// each edge once per direction, rows sorted, no self-loops or repeats.
typedef struct {
    int vertexCount, *rowOffsets, *colIndices;  // rowOffsets: vertexCount + 1; colIndices: 2E
    char* labels;  // NULL, or vertexCount strings of kMaxLabelLength + 1
    // Undirected edges; the pairs it was built from, and the self-loops among them.
    long long edgeCount, pairCount, selfLoops;
} Graph;
// One CPU search, kept for the judge: exact distances and each level's size.
typedef struct {
    int source, levels, reached;  // levels: non-empty frontiers, level 0 included
    long long componentEdges;     // Graph500: undirected edges inside the component
    int *dist, *levelSize;        // vertexCount (-1 where not reached), levels
} Search;
// Every device array of the searches, and what sizes their launches.
typedef struct {
    int vertexCount, pieceCapacity;
    // Bytes of an int a vertex (dist, the queue), of the visited bitmap, of the counters.
    size_t vertexBytes, visitedBytes, countBytes;
    int *rowOffsets, *colIndices, *dist, *queue;
    unsigned int *visited, *counts;  // counts: 2 * (vertexCount + 1)
    int2* pieces;
    int* scratchDist;  // the claim step's copies of dist and visited
    unsigned int* scratchVisited;
    unsigned long long* sink;            // where the partial steps store what keeps their loads
    const int* hostRowOffsets;           // the host's copy, to size grids without a round trip
    int gridLoopBlocks, residentBlocks;  // co-resident blocks: cooperative, edge-balanced kernel
    // The block loop's dynamic shared memory: the state, and the state with the graph; 0: no fit.
    size_t stateShared, graphShared;
} DeviceBfs;
// The lesson's six searches: three mappings of a level under a host loop, three device loops.
static const int kMapThread = 0, kMapWarp = 1, kMapBalanced = 2, kMapBlockLoop = 3, kMapOnChip = 4,
                 kMapGridLoop = 5, kMappingCount = 6;
static const char* const kMappingName[kMappingCount] = {
    "host loop, thread",  "host loop, warp",      "host loop, balanced",
    "device loop, block", "device loop, on chip", "device loop, grid"};
// The run's flags. matrixPath NULL: the big graph is a Kronecker one.
typedef struct {
    int scale, roots, small, full;
    const char *matrixPath, *wordsPath;
} Options;
// A graph and its searches: the source rule's one on the word graph, one per Graph500 root on the
// big graph; the GPU's time of each whole search (0: the mapping did not run).
typedef struct {
    Graph g;
    const char* name;    // the file, or "Kronecker graph"
    int count, runs;     // searches, timed runs of each (the budget's)
    unsigned int mask;   // the mappings the budget lets run
    long long launches;  // the budget's count of its level launches, at most
    Search search[kMaxRoots];
    float ms[kMappingCount][kMaxRoots];
} Part;

// splitmix64: a fixed-seed generator written out here, so that the Kronecker graph and the roots
// are the same everywhere.
static uint64_t splitmix64(uint64_t* state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static int degreeOf(const Graph* g, int v) {
    return g->rowOffsets[v + 1] - g->rowOffsets[v];
}
static char* labelOf(const Graph* g, int v) {
    return g->labels + (size_t)v * (kMaxLabelLength + 1);
}
// A vertex's label, or v<number> in `buffer` (24 bytes) when the graph has none.
static const char* nameOf(const Graph* g, int v, char* buffer) {
    if (g->labels != NULL)
        return labelOf(g, v);
    snprintf(buffer, 24, "v%d", v);
    return buffer;
}
static int blocksFor(long long threads, int perBlock) {
    return (int)((threads + perBlock - 1) / perBlock);
}
// Prints one line to `stream` and returns 1, so a refusal or a failed check is one statement.
static int fail(FILE* stream, const char* format, ...) {
    va_list args;
    va_start(args, format);
    vfprintf(stream, format, args);
    va_end(args);
    fputc('\n', stream);
    return 1;
}
// malloc, or NULL after one line: `NAME: out of host memory (N bytes for WHAT)`.
static void* allocate(const char* name, size_t bytes, const char* what) {
    void* p = malloc(bytes > 0 ? bytes : 1);
    if (p == NULL)
        fail(stderr, "%s: out of host memory (%zu bytes for %s)", name, bytes, what);
    return p;
}
// Frees g and returns 1, so a refusal that drops the graph is one statement.
static int freeGraph(Graph* g) {
    free(g->rowOffsets);
    free(g->colIndices);
    free(g->labels);
    memset(g, 0, sizeof(*g));
    return 1;
}

// ---- Kernels, in the order the lesson teaches them ----

// ---- begin day38-bfs/bfs.cu: grid loop ----
// Day 38's search for big graphs: the edge-balanced expansion of a level (expandBalanced), level
// after level inside one cooperative grid (bfsGridLoop). Day 40 races it with a verbatim copy of
// this block, so the block stands alone: <cuda_runtime.h>, <cooperative_groups.h> and <climits>
// before it, nothing else. Day 38's other mappings call its helpers; its table of where a level's
// time goes runs the expansion's first steps alone (kUpTo).
#include <cooperative_groups/scan.h>
namespace cg = cooperative_groups;

static const int kWarpSize = 32;          // every GPU this course targets
static const int kThreadsPerBlock = 256;  // 8 warps: whole warps, several blocks an SM
// Resident blocks a search kernel asks of an SM: more warps, a few spills (day 38's notes.md);
// sm_75 holds 1024 threads an SM, so 4 there.
#if __CUDA_ARCH__ == 750
static const int kSearchBlocksPerSm = 4;
#else
static const int kSearchBlocksPerSm = 6;
#endif
// A heavy vertex's list (degree >= BfsArrays.heavyDegree) is cut into pieces of kPieceEdges
// entries, one warp a piece (8 loads a lane), over the whole grid, not a few blocks.
static const int kPieceEdges = 256;
static const int kNoHeavyDegree = INT_MAX;  // "no vertex is heavy": a mapping without pieces
static const int kLightEdges = 4;           // light edges a thread takes at once: 4 loads in flight
static const int kOutboxSlots = 1024;  // a block's claims between flushes; overflow appends alone
static_assert(kThreadsPerBlock % kWarpSize == 0, "a block must be whole warps");

// What a kernel needs to expand one level, by value. The frontiers sit in one queue, level after
// level, like the CPU's order; counts[2L] is level L's vertices, counts[2L + 1] its pieces (edge
// ranges); visited, a bit per vertex. capacity: vertexCount (no queue holds more distinct
// vertices); pieceCapacity: entries / kPieceEdges + vertexCount (every heavy list cut up);
// heavyDegree: from it on a list is cut into pieces, or kNoHeavyDegree; sink: may be NULL. State
// that other threads write in the same kernel (queue, counters, pieces) is read from L2 (__ldcg),
// where atomics and other SMs' stores land, so that no stale L1 line answers.
typedef struct {
    const int *rowOffsets, *colIndices;
    int *dist, *queue;
    unsigned int *visited, *counts;  // counts: 2 * (capacity + 1)
    int2* pieces;
    unsigned long long* sink;
    int capacity, pieceCapacity, heavyDegree;
} BfsArrays;
// Where level `level` sits in the queue (its `size` vertices from slot `start`) and in the pieces.
typedef struct {
    int level, start, size, pieceStart, pieceSize;
} LevelWindow;
// A block's outbox: its claims wait in shared memory and reach the queue with one atomicAdd a
// block (flushOutbox), not one a warp on the level's single counter. A claim that finds the
// outbox full appends by itself.
typedef struct {
    int vertex[kOutboxSlots];
    unsigned int count, flushed, base;
} Outbox;
// The steps of the balanced expansion that day 38's per-level table times, each the one before
// plus one more part of the work; kUpToQueue is the whole expansion.
enum {
    kUpToSplit,
    kUpToEdges,
    kUpToVisited,
    kUpToClaim,
    kUpToQueue,
    kStepCount
};

// How many pieces a heavy vertex is cut into; 0 for a light one, and for all without pieces.
__device__ int piecesOf(const BfsArrays& a, int v) {
    if (a.heavyDegree == kNoHeavyDegree)
        return 0;
    const int degree = a.rowOffsets[v + 1] - a.rowOffsets[v];
    return degree >= a.heavyDegree ? (degree + kPieceEdges - 1) / kPieceEdges : 0;
}
// Writes v's `count` pieces from slot `first` on, and returns count; a slot past the capacity
// means a vertex was claimed twice (the judge says so).
__device__ int writePieces(const BfsArrays& a, int v, long long first, int count) {
    const int begin = a.rowOffsets[v], end = a.rowOffsets[v + 1];
    for (int p = 0; p < count && first + p < a.pieceCapacity; ++p)
        a.pieces[first + p] =
            make_int2(begin + p * kPieceEdges, min(begin + (p + 1) * kPieceEdges, end));
    return count;
}
// Every search starts with -1 in dist, no visited bit but the source's, zero counters, and the
// source (with its pieces) as level 0: a kernel's work, not memsets, so that a host loop pays one
// launch for it and a device loop none.
__device__ void resetSearch(const BfsArrays& a, int source, long long thread, long long threads) {
    const int sourcePieces = piecesOf(a, source);
    for (long long v = thread; v < a.capacity; v += threads)
        a.dist[v] = (v == source) ? 0 : -1;
    for (long long i = thread; i < (a.capacity + 31) / 32; i += threads)
        a.visited[i] = i == source / 32 ? 1u << (source % 32) : 0u;
    for (long long i = thread; i < 2LL * (a.capacity + 1); i += threads)
        a.counts[i] = (i == 0) ? 1u : (i == 1 ? (unsigned int)sourcePieces : 0u);
    if (thread == 0) {
        a.queue[0] = source;
        writePieces(a, source, 0, sourcePieces);
    }
}
// `count` slots of a counter for each calling lane: the lanes of a warp that arrive together
// share one atomicAdd, and a scan of their counts (ranks, when all are one) gives each its offset.
__device__ unsigned int appendSlots(unsigned int* counter, unsigned int count) {
    cg::coalesced_group arrived = cg::coalesced_threads();
    const unsigned int offset =
        arrived.all(count == 1u) ? arrived.thread_rank() : cg::exclusive_scan(arrived, count);
    const unsigned int last = arrived.size() - 1;
    unsigned int base = 0u;
    if (arrived.thread_rank() == last)
        base = atomicAdd(counter, offset + count);
    return arrived.shfl(base, last) + offset;
}
// A lane's claims from one walk (bit j of `won`: it took v[j]): the heavy ones' pieces with one
// reservation, the queue slots with one more, through the block's outbox while it has room (warp
// per vertex has none). One reservation per lane and walk, not one per claim.
template <int kCount>
__device__ void enqueueClaims(const BfsArrays& a, const LevelWindow& w, const int (&v)[kCount],
                              unsigned int won, Outbox* outbox) {
    unsigned int total = 0u, spilled = 0u;
    unsigned int room = outbox != NULL ? appendSlots(&outbox->count, __popc(won)) : kOutboxSlots;
#pragma unroll
    for (int j = 0; j < kCount; ++j)
        total += won >> j & 1u ? piecesOf(a, v[j]) : 0;
    if (total > 0) {  // rare: a heavy vertex claimed
        long long first =
            (long long)w.pieceStart + w.pieceSize + appendSlots(&a.counts[2 * w.level + 3], total);
        for (int j = 0; j < kCount; ++j)
            if (won >> j & 1u)
                first += writePieces(a, v[j], first, piecesOf(a, v[j]));
    }
#pragma unroll
    for (int j = 0; j < kCount; ++j) {
        if (won >> j & 1u) {
            if (room < kOutboxSlots)
                outbox->vertex[room++] = v[j];
            else
                spilled |= 1u << j;  // a full outbox (or none): straight to the queue
        }
    }
    if (spilled == 0u)
        return;
    long long slot =
        (long long)w.start + w.size + appendSlots(&a.counts[2 * (w.level + 1)], __popc(spilled));
    for (int j = 0; j < kCount; ++j) {
        if (spilled >> j & 1u && slot < a.capacity)
            a.queue[slot] = v[j];  // only a duplicate goes past
        slot += spilled >> j & 1u;
    }
}
// kCount edges a lane (edge[j] < 0: none), loads first: every neighbour, every visited word, then
// every claim, so a lane has kCount loads and atomics in flight. Neighbour lists are read once a
// search: streamed (__ldcs, evict first), they leave L1 alone. The visited read is a filter, cheap,
// and most edges lead to a vertex already reached; a bit once set stays set, so a stale copy only
// says "not yet" of a taken vertex and the claim then says no: it may come from L1 (__ldca), where
// 2^21 bits (256 KB) largely fit; dist (8 MB) would not. The claim is an atomicOr: of all racers
// for v, exactly one gets its bit back clear (a plain store would let each append v: dist perfect,
// a frontier holding v twice). kUpTo stops after a step of the per-level table.
// snippet: claim
template <int kUpTo, int kCount>
__device__ void walkEdges(const BfsArrays& a, const LevelWindow& w, const int (&edge)[kCount],
                          Outbox* outbox, unsigned long long* sink) {
    int v[kCount];
    unsigned int word[kCount], won = 0u;
#pragma unroll
    for (int j = 0; j < kCount; ++j)
        v[j] = edge[j] >= 0 && kUpTo > kUpToSplit ? __ldcs(&a.colIndices[edge[j]]) : -1;
#pragma unroll
    for (int j = 0; j < kCount; ++j)
        word[j] = v[j] >= 0 && kUpTo > kUpToEdges ? __ldca(&a.visited[v[j] / 32]) : 0u;
#pragma unroll
    for (int j = 0; j < kCount; ++j) {
        const bool fresh = v[j] >= 0 && !(word[j] >> (v[j] % 32) & 1u);
        if (kUpTo < kUpToClaim)
            *sink += kUpTo == kUpToSplit ? edge[j] + 1 : kUpTo == kUpToEdges ? v[j] + 1 : fresh;
        else
            word[j] = fresh ? atomicOr(&a.visited[v[j] / 32], 1u << (v[j] % 32)) : ~0u;
    }
#pragma unroll
    for (int j = 0; j < kCount; ++j) {
        if (kUpTo >= kUpToClaim && v[j] >= 0 && !(word[j] >> (v[j] % 32) & 1u)) {
            won |= 1u << j;  // the bit was clear: v[j] is ours
            a.dist[v[j]] = w.level + 1;
        }
    }
    if (kUpTo == kUpToQueue && won != 0u)
        enqueueClaims(a, w, v, won, outbox);
}
// end snippet
// Inclusive scan of x over the warp's lanes: five shuffles up.
__device__ int warpInclusiveScan(int x) {
    const int lane = threadIdx.x % kWarpSize;
    for (int offset = 1; offset < kWarpSize; offset *= 2) {
        const int y = __shfl_up_sync(0xffffffffu, x, offset);
        x += lane >= offset ? y : 0;
    }
    return x;
}
// Exclusive block scan into scan[threadIdx.x], returning the total: each warp scans its own, then
// one warp the warp totals.
__device__ int blockExclusiveScan(int x, int* scan, int* warpTotals) {
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    const int warps = blockDim.x / kWarpSize;
    const int inclusive = warpInclusiveScan(x);
    if (lane == kWarpSize - 1)
        warpTotals[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        const int total = warpInclusiveScan(lane < warps ? warpTotals[lane] : 0);
        if (lane < warps)
            warpTotals[lane] = total;
    }
    __syncthreads();
    scan[threadIdx.x] = inclusive - x + (warp > 0 ? warpTotals[warp - 1] : 0);
    return warpTotals[warps - 1];
}
// Every thread calls it: the outbox reaches the queue, one atomicAdd a block; its first barrier
// also ends the chunk.
__device__ void flushOutbox(const BfsArrays& a, const LevelWindow& w, Outbox* outbox) {
    __syncthreads();
    if (outbox == NULL)
        return;
    if (threadIdx.x == 0) {
        outbox->flushed = min(outbox->count, (unsigned int)kOutboxSlots);
        outbox->count = 0u;
        outbox->base =
            outbox->flushed > 0 ? atomicAdd(&a.counts[2 * (w.level + 1)], outbox->flushed) : 0u;
    }
    __syncthreads();
    for (unsigned int j = threadIdx.x; j < outbox->flushed; j += blockDim.x)
        if ((long long)w.start + w.size + outbox->base + j < a.capacity)
            a.queue[w.start + w.size + outbox->base + j] = outbox->vertex[j];
}
// Mapping 3, the one that adapts to degree. Heavy vertices were cut into pieces of kPieceEdges
// edges when claimed; every warp of the grid takes pieces in turn, so 400 warps walk a hub of
// 100,000 edges. Light ones: a block takes blockDim.x of them, scans their degrees and deals
// edge k to thread k % blockDim.x (a binary search finds its owner), kLightEdges at a time. The
// host loop's kernel and the grid loop share it (the block loop has its own level, loopLevel).
// snippet: expand-balanced
template <int kUpTo>
__device__ void expandBalanced(const BfsArrays& a, const LevelWindow& w, int* scan, int* owners,
                               int* warpTotals, Outbox* outbox) {
    const long long thread = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long warps = (long long)gridDim.x * blockDim.x / kWarpSize;
    const int lane = threadIdx.x % kWarpSize;
    unsigned long long sink = 0;
    for (long long p = thread / kWarpSize; p < w.pieceSize; p += warps) {
        const int2 piece = __ldcg(&a.pieces[w.pieceStart + p]);  // global memory
        int edge[kPieceEdges / kWarpSize];
#pragma unroll
        for (int j = 0; j < kPieceEdges / kWarpSize; ++j)
            edge[j] =
                piece.x + lane + j * kWarpSize < piece.y ? piece.x + lane + j * kWarpSize : -1;
        walkEdges<kUpTo>(a, w, edge, outbox, &sink);
    }
    flushOutbox(a, w, outbox);  // pieces' claims, chunk or not
    for (long long chunk = (long long)blockIdx.x * blockDim.x; chunk < w.size;
         chunk += (long long)gridDim.x * blockDim.x) {
        const long long i = chunk + threadIdx.x;
        int degree = 0, begin = 0;
        if (i < w.size) {
            const int u = __ldcg(&a.queue[w.start + i]);
            begin = a.rowOffsets[u];
            degree = a.rowOffsets[u + 1] - begin;
            if (degree >= a.heavyDegree)
                degree = 0;  // its pieces are walked above
        }
        const int edges = blockExclusiveScan(degree, scan, warpTotals);
        owners[threadIdx.x] = begin;
        __syncthreads();
        const int vertices = (int)(w.size - chunk < blockDim.x ? w.size - chunk : blockDim.x);
        for (int first = 0; first < edges; first += kLightEdges * blockDim.x) {
            int edge[kLightEdges];
#pragma unroll
            for (int j = 0; j < kLightEdges; ++j) {
                const int k = first + j * blockDim.x + threadIdx.x;
                int low = 0, high = vertices - 1;  // k's owner: the last first edge <= k
                for (int mid = (low + high + 1) / 2; low < high; mid = (low + high + 1) / 2)
                    if (scan[mid] <= k)
                        low = mid;
                    else
                        high = mid - 1;
                edge[j] = k < edges ? owners[low] + (k - scan[low]) : -1;
            }
            walkEdges<kUpTo>(a, w, edge, outbox, &sink);
        }
        flushOutbox(a, w, outbox);  // its barrier: scan and owners are rewritten next
    }
    // end snippet
    if (kUpTo < kUpToClaim && sink == 1)
        *a.sink = sink;  // a store that keeps the loads
}
// The level after w, from the counts of its vertices and pieces (host and device loops alike). A
// duplicate append could push a count past the end; read no further.
__host__ __device__ LevelWindow windowAfter(const LevelWindow& w, unsigned int size,
                                            unsigned int pieces, int capacity, int pieceCapacity) {
    LevelWindow next = {w.level + 1, w.start + w.size, 0, w.pieceStart + w.pieceSize, 0};
    const unsigned int room = (unsigned int)(capacity - next.start);
    const unsigned int pieceRoom = (unsigned int)(pieceCapacity - next.pieceStart);
    next.size = (int)(size < room ? size : room);
    next.pieceSize = (int)(pieces < pieceRoom ? pieces : pieceRoom);
    return next;
}
// Device loop 2: the whole search in one cooperative grid, as many blocks as fit on the GPU at
// once, grid.sync() the level barrier: it scales to graphs one block cannot carry, and its
// barrier gathers every SM.
// Launch: cooperative, blockDim.x = kThreadsPerBlock, gridDim.x at most the co-resident blocks.
// snippet: grid-loop
__global__ void __launch_bounds__((kThreadsPerBlock), kSearchBlocksPerSm)
    bfsGridLoop(BfsArrays a, int source) {
    __shared__ int scan[kThreadsPerBlock], owners[kThreadsPerBlock], warpTotals[kWarpSize];
    __shared__ Outbox outbox;
    cg::grid_group grid = cg::this_grid();
    resetSearch(a, source, grid.thread_rank(), grid.size());
    if (threadIdx.x == 0)
        outbox.count = 0u;
    grid.sync();
    LevelWindow w = {0, 0, 1, 0, (int)__ldcg(&a.counts[1])};  // level 0: the source
    while (w.size > 0) {
        expandBalanced<kUpToQueue>(a, w, scan, owners, warpTotals, &outbox);
        grid.sync();  // every SM's appends are done
        const unsigned int* next = &a.counts[2 * (w.level + 1)];
        w = windowAfter(w, __ldcg(next), __ldcg(next + 1), a.capacity, a.pieceCapacity);
    }
}
// end snippet
// ---- end day38-bfs/bfs.cu: grid loop ----

// Launch: any grid; gridDim.x * blockDim.x threads share the work.
__global__ void bfsReset(BfsArrays a, int source) {
    resetSearch(a, source, blockIdx.x * (long long)blockDim.x + threadIdx.x,
                (long long)gridDim.x * blockDim.x);
}
// Mapping 1, thread per vertex, what most write first: a thread takes one frontier vertex and
// walks its whole list, so a warp runs as long as its widest vertex (whoever holds "the" walks
// a thousand entries with 31 lanes off). A neighbour whose visited bit is clear is claimed by
// an atomicOr on that bit: of all racers exactly one gets it back clear, and that one sets the
// distance and appends the vertex to the next level's queue.
// Launch: gridDim.x * blockDim.x >= w.size.
// snippet: expand-by-vertex
__global__ void expandThreadPerVertex(BfsArrays a, LevelWindow w) {
    const long long vertex = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (vertex >= w.size)
        return;
    const int u = a.queue[w.start + vertex];
    for (int e = a.rowOffsets[u]; e < a.rowOffsets[u + 1]; ++e) {
        const int v = a.colIndices[e];
        const unsigned int bit = 1u << (v % 32);
        // the filter, then the claim
        if (!(a.visited[v / 32] & bit) && !(atomicOr(&a.visited[v / 32], bit) & bit)) {
            a.dist[v] = w.level + 1;
            a.queue[w.start + w.size + atomicAdd(&a.counts[2 * (w.level + 1)], 1u)] = v;
        }
    }
}
// end snippet
// Mapping 2, warp per vertex: the 32 lanes of a warp stride one vertex's list together,
// neighbouring lanes on neighbouring entries, but a vertex of degree 1 occupies 32 lanes for
// one read. Each lane's edge goes through walkEdges, the balanced mapping's claim, with no
// outbox. Launch: gridDim.x * blockDim.x >= 32 * w.size; blockDim.x a multiple of 32.
__global__ void expandWarpPerVertex(BfsArrays a, LevelWindow w) {
    const long long vertex = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / kWarpSize;
    if (vertex < w.size) {  // the same for the warp's 32 lanes
        const int u = __ldcg(&a.queue[w.start + vertex]);
        const int end = a.rowOffsets[u + 1];
        for (int e = a.rowOffsets[u] + (int)(threadIdx.x % kWarpSize); e < end; e += kWarpSize) {
            const int edge[1] = {e};
            walkEdges<kUpToQueue>(a, w, edge, NULL, NULL);
        }
    }
}
// Mapping 3 under the host loop: one level of expandBalanced, or its first kUpTo steps.
// Launch: blockDim.x = kThreadsPerBlock; gridDim.x * blockDim.x >= w.size; more blocks add
// warps for the pieces.
template <int kUpTo>
__global__ void __launch_bounds__((kThreadsPerBlock), kSearchBlocksPerSm)
    expandBalancedKernel(BfsArrays a, LevelWindow w) {
    __shared__ int scan[kThreadsPerBlock], owners[kThreadsPerBlock], warpTotals[kWarpSize];
    __shared__ Outbox outbox;
    if (threadIdx.x == 0)
        outbox.count = 0u;
    __syncthreads();
    expandBalanced<kUpTo>(a, w, scan, owners, warpTotals, &outbox);
}

// The OR of x over the warp: one instruction from sm_80 on, five shuffles before it.
__device__ unsigned int warpOr(unsigned int x) {
#if __CUDA_ARCH__ >= 800
    return __reduce_or_sync(~0u, x);
#else
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
        x |= __shfl_xor_sync(~0u, x, offset);
    return x;
#endif
}
// The block loop's claim, its own: the compare-and-swap on dist, the filter read first
// (notes.md: the bitmap cost it). kCount windows of a warp's 32 edges (edge < 0: none), loads
// first; a ballot gives the winners their slots from `tail` on, with one atomicAdd a warp and
// window on the shared counter, or none for warp 0 alone (its count in a register).
template <bool kAlone, int kCount>
__device__ void claimWindows(const BfsArrays& a, int level, int tail, const int (&edge)[kCount],
                             unsigned int* count) {
    const unsigned int lane = threadIdx.x % kWarpSize, below = (1u << lane) - 1u;
    int v[kCount];
    for (int j = 0; j < kCount; ++j)
        v[j] = edge[j] >= 0 ? a.colIndices[edge[j]] : -1;
    for (int j = 0; j < kCount; ++j)
        v[j] = v[j] >= 0 && *(volatile int*)&a.dist[v[j]] == -1 ? v[j] : -1;
    for (int j = 0; j < kCount; ++j)  // -1: not won
        v[j] = v[j] >= 0 && atomicCAS(&a.dist[v[j]], -1, level + 1) == -1 ? v[j] : -1;
    for (int j = 0; j < kCount; ++j) {
        // mask: the same in every lane
        const unsigned int mask = __ballot_sync(~0u, v[j] >= 0), leader = __ffs(mask) - 1;
        unsigned int base = kAlone ? *count : 0u;
        if (!kAlone && mask != 0u)
            base = __shfl_sync(~0u, lane == leader ? atomicAdd(count, __popc(mask)) : 0u, leader);
        if (kAlone)
            *count += __popc(mask);
        if (v[j] >= 0 && tail + base + __popc(mask & below) < a.capacity)
            a.queue[tail + base + __popc(mask & below)] = v[j];
    }
}
// One level of the block loop: by warp 0 alone (kAlone: at most 32 vertices, __syncwarp for
// barriers) or by the block in chunks of blockDim.x vertices. Thread i holds vertex i's first
// edge (owners) and where its edges begin among its warp's (scan); after one barrier each warp
// scans the warp totals itself and walks its own run of the chunk's edges. A reached vertex has
// an edge (the one it came by), so first edges strictly increase: a window of 32 edges holds at
// most 32 starts after its first, one bit each in a warp's OR; a lane's owner is the first owner
// plus the starts up to it. Returns the next level's size; -1: too big for warp 0 alone.
template <bool kAlone>
__device__ int loopLevel(const BfsArrays& a, int level, int start, int size, int* scratch) {
    int *scan = scratch, *owners = scratch + kLoopBlockThreads,
        *warpTotals = owners + kLoopBlockThreads;
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    const int warps = kAlone ? 1 : blockDim.x / kWarpSize;
    unsigned int count = 0u, *counter = kAlone ? &count : &a.counts[2 * (level + 1)];
    for (int chunk = 0; chunk < size; chunk += blockDim.x) {
        const int vertices = min(size - chunk, (int)blockDim.x);
        const int u = threadIdx.x < vertices ? a.queue[start + chunk + threadIdx.x] : 0;
        const int begin = threadIdx.x < vertices ? a.rowOffsets[u] : 0;
        const int degree = threadIdx.x < vertices ? a.rowOffsets[u + 1] - begin : 0;
        const int inclusive = warpInclusiveScan(degree);
        scan[threadIdx.x] = inclusive - degree;
        owners[threadIdx.x] = begin;
        if (lane == kWarpSize - 1)
            warpTotals[warp] = inclusive;
        if (kAlone)
            __syncwarp();
        else
            __syncthreads();
        int offset = lane < warps ? warpTotals[lane] : 0;
        if (!kAlone)
            offset = warpInclusiveScan(offset);  // warp 0 alone: one warp total
        const int edges = __shfl_sync(~0u, offset, kAlone ? 0 : kWarpSize - 1);
        const int share = (edges + warps * kWarpSize - 1) / (warps * kWarpSize) * kWarpSize;
        const int from = warp * share, to = min(from + share, edges);
        if (kAlone && edges > kAloneWindows * kWarpSize)
            return -1;  // the block takes this level
        // Lane w: where warp w's vertices' edges begin. Then the owner of edge `from`: the last
        // vertex whose first edge is <= from.
        offset -= lane < warps ? warpTotals[lane] : 0;
        int low = 0, high = vertices - 1;
        for (int mid = (low + high + 1) / 2; from < to && low < high; mid = (low + high + 1) / 2)
            if (scan[mid] + __shfl_sync(~0u, offset, mid / kWarpSize) <= from)
                low = mid;
            else
                high = mid - 1;
        for (int f = from; f < to; f += kLoopWindows * kWarpSize) {
            int edge[kLoopWindows];
#pragma unroll
            for (int j = 0; j < kLoopWindows; ++j) {  // a window: edges w to w + 31
                const int w = f + j * kWarpSize;
                const int x = min(low + 1 + lane, vertices);  // owners from low on
                const int xWarpFirst = __shfl_sync(~0u, offset, x / kWarpSize);  // every lane
                const int first = x < vertices ? scan[x] + xWarpFirst : edges;
                const unsigned int starts =
                    warpOr(first > w && first < w + kWarpSize ? 1u << (first - w) : 0u);
                const int owner = min(low + __popc(starts & ((2u << lane) - 1u)), vertices - 1);
                const int ownerWarpFirst = __shfl_sync(~0u, offset, owner / kWarpSize);
                edge[j] =
                    w + lane < to ? owners[owner] + w + lane - scan[owner] - ownerWarpFirst : -1;
                low += __popc(starts) + (__ballot_sync(~0u, first == w + kWarpSize) != 0u);
            }
            claimWindows<kAlone>(a, level, start + size, edge, counter);
        }
        // scan, owners and warpTotals are rewritten next; the last barrier ends the level
        if (kAlone)
            __syncwarp();
        else
            __syncthreads();
    }
    if (kAlone && lane == 0)
        a.counts[2 * (level + 1)] = count;
    return (int)(kAlone ? count : *(volatile unsigned int*)counter);
}
// The block loop's state in shared memory: dist, the queue, 2 (V + 1) counters, the visited
// bits; the graph too if asked.
__device__ BfsArrays moveOnChip(const BfsArrays& global, int* state, int graphOnChip) {
    BfsArrays a = global;
    a.dist = state;
    a.queue = state + a.capacity;
    a.counts = (unsigned int*)(state + 2 * a.capacity);
    a.visited = (unsigned int*)(state + 4 * a.capacity + 2);
    a.heavyDegree = kNoHeavyDegree;  // no pieces
    if (graphOnChip) {
        int* graph = state + 4 * a.capacity + 2 + (a.capacity + 31) / 32;
        for (int i = threadIdx.x; i <= a.capacity; i += blockDim.x)
            graph[i] = global.rowOffsets[i];
#pragma unroll 8
        for (int i = threadIdx.x; i < global.rowOffsets[a.capacity]; i += blockDim.x)
            graph[a.capacity + 1 + i] = global.colIndices[i];
        a.rowOffsets = graph;
        a.colIndices = graph + a.capacity + 1;
    }
    return a;
}
// Device loop 1: the whole search in one block, its state on chip (graphOnChip: the graph too, no
// read leaves the SM). A level ends at a barrier, not a launch and a copy; while frontiers are
// tiny, warp 0 runs levels alone. One SM does all the work: it wins only while levels are small,
// as the word graph's are. Launch: <<<1, kLoopBlockThreads, stateShared or graphShared>>>.
// snippet: block-loop
__global__ void __launch_bounds__((kLoopBlockThreads))
    bfsBlockLoop(BfsArrays global, int source, int graphOnChip) {
    // scan, owners, warp totals; warp 0's last level
    __shared__ int scratch[2 * kLoopBlockThreads + kWarpSize];
    __shared__ int3 handover;
    extern __shared__ int state[];
    const BfsArrays a = moveOnChip(global, state, graphOnChip);
    resetSearch(a, source, threadIdx.x, blockDim.x);
    __syncthreads();
    int level = 0, start = 0, size = 1;
    while (size > 0) {
        if (size <= kWarpSize) {  // warp 0 alone on tiny levels
            while (threadIdx.x < kWarpSize && size > 0 && size <= kWarpSize) {
                const int next = loopLevel<true>(a, level, start, size, scratch);
                if (next < 0)
                    break;  // too big for one warp
                start += size;
                ++level;
                size = min(next, a.capacity - start);
            }
            if (threadIdx.x == 0)
                handover = make_int3(level, start, size);
            __syncthreads();
            level = handover.x;
            start = handover.y;
            size = handover.z;
            if (size == 0)
                break;
        }
        const int next = loopLevel<false>(a, level, start, size, scratch);  // ends at a barrier
        start += size;
        ++level;
        size = min(next, a.capacity - start);
    }
    // end snippet
    for (int i = threadIdx.x; i < a.capacity; i += blockDim.x) {  // the state back to the host's
        global.dist[i] = a.dist[i];
        global.queue[i] = a.queue[i];
    }
    for (int i = threadIdx.x; i < 2 * (a.capacity + 1); i += blockDim.x)
        global.counts[i] = a.counts[i];
}

// ---- CPU reference: the judge, and the host's analysis of a graph ----

// Queue BFS, one level per pass. What level L finds lands after it in `order`, so levelStart[L]
// marks where level L begins: the GPU's frontiers, though the GPU orders a level as its atomics
// fall, so it is judged on distances and level sizes, not order. dist, order: vertexCount;
// levelStart: vertexCount + 1. Returns the levels.
// snippet: cpu-bfs
static int bfsCpu(const Graph* g, int source, int* dist, int* order, int* levelStart) {
    memset(dist, 0xff, sizeof(int) * (size_t)g->vertexCount);  // all -1: not reached
    dist[source] = 0;
    order[0] = source;
    levelStart[0] = 0;
    int found = 1, levels = 0;
    while (levelStart[levels] < found) {
        const int first = levelStart[levels], last = found;
        for (int k = first; k < last; ++k) {
            for (int e = g->rowOffsets[order[k]]; e < g->rowOffsets[order[k] + 1]; ++e) {
                const int v = g->colIndices[e];
                if (dist[v] == -1) {
                    dist[v] = levels + 1;
                    order[found++] = v;
                }
            }
        }
        levelStart[++levels] = last;
    }
    return levels;
}
// end snippet
// The CPU search from `source`, kept for the judge; Graph500 counts the component's undirected
// edges once each.
static int recordSearch(const Part* p, int source, int* order, int* levelStart, Search* s) {
    const Graph* g = &p->g;
    s->source = source;
    s->dist = (int*)allocate(p->name, sizeof(int) * (size_t)g->vertexCount, "a search's distances");
    if (s->dist == NULL)
        return 1;
    s->levels = bfsCpu(g, source, s->dist, order, levelStart);
    s->reached = levelStart[s->levels];
    s->levelSize = (int*)allocate(p->name, sizeof(int) * (size_t)s->levels, "a search's levels");
    for (int l = 0; s->levelSize != NULL && l < s->levels; ++l)
        s->levelSize[l] = levelStart[l + 1] - levelStart[l];
    long long degreeSum = 0;
    for (int k = 0; k < s->reached; ++k)
        degreeSum += degreeOf(g, order[k]);
    s->componentEdges = degreeSum / 2;
    return s->levelSize == NULL;
}
static int compareInts(const void* a, const void* b) {
    return *(const int*)a - *(const int*)b;  // degrees, vertices below 2^30: no overflow
}
static void printDegreeStats(const Graph* g, int* degrees) {
    int hub = 0, degreeOne = 0, degreeZero = 0, heavy = 0;
    char name[24];
    for (int v = 0; v < g->vertexCount; ++v) {
        const int d = degrees[v] = degreeOf(g, v);
        degreeOne += d == 1;
        degreeZero += d == 0;
        heavy += d >= kHeavyDegree;
        hub = d > degreeOf(g, hub) ? v : hub;
    }
    qsort(degrees, (size_t)g->vertexCount, sizeof(int), compareInts);
    printf(
        "  %d vertices, %lld undirected edges, %lld adjacency entries\n  degree: max %d (%s), "
        "median %d, mean %.2f; %d of degree 1, %d of degree 0, %d of degree >= %d\n",
        g->vertexCount, g->edgeCount, 2 * g->edgeCount, degreeOf(g, hub), nameOf(g, hub, name),
        degrees[g->vertexCount / 2], 2.0 * (double)g->edgeCount / g->vertexCount, degreeOne,
        degreeZero, heavy, kHeavyDegree);
}
// Per level, from the CPU's frontiers: edges, the widest vertex, and the lane slots each
// mapping issues (thread per vertex: a warp of 32 vertices runs as long as its widest; warp per
// vertex: ceil(degree / 32) steps). No clock.
static void printLevelWork(const Graph* g, const int* order, const int* levelStart, int levels) {
    puts(" level  frontier     edges  max deg  heavy  warps thread slots   warp slots  busiest");
    long long totalEdges = 0, totalThreadSlots = 0, totalWarpSlots = 0;
    char name[24];
    for (int l = 0; l < levels; ++l) {
        const int begin = levelStart[l], end = levelStart[l + 1];
        long long edges = 0, threadSlots = 0, warpSlots = 0;
        int busiest = order[begin], warpMax = 0, heavy = 0;
        for (int k = begin; k < end; ++k) {
            const int d = degreeOf(g, order[k]), lane = (k - begin) & (kWarpSize - 1);
            edges += d;
            heavy += d >= kHeavyDegree;
            warpMax = d > warpMax ? d : warpMax;
            busiest = d > degreeOf(g, busiest) ? order[k] : busiest;
            if (lane == kWarpSize - 1 || k + 1 == end) {  // a warp's last vertex
                threadSlots += (long long)kWarpSize * warpMax;
                warpMax = 0;
            }
            warpSlots += (long long)kWarpSize * blocksFor(d, kWarpSize);
        }
        totalEdges += edges;
        totalThreadSlots += threadSlots;
        totalWarpSlots += warpSlots;
        // The busiest vertex's word is cut to 43 letters, so that a row fits 120 columns.
        if (l < kMaxTableLevels)
            printf("%6d %9d %9lld %8d %6d %6d %12lld %12lld  %.43s\n", l, end - begin, edges,
                   degreeOf(g, busiest), heavy, blocksFor(end - begin, kWarpSize), threadSlots,
                   warpSlots, nameOf(g, busiest, name));
    }
    if (levels > kMaxTableLevels)
        printf("  (levels from %d on are not listed)\n", kMaxTableLevels);
    printf(
        "  %lld edges walked; lane slots issued: %lld thread per vertex (%.1f%% busy), %lld warp "
        "per vertex (%.1f%% busy)\n",
        totalEdges, totalThreadSlots,
        100.0 * totalEdges / (double)(totalThreadSlots + !totalThreadSlots), totalWarpSlots,
        100.0 * totalEdges / (double)(totalWarpSlots + !totalWarpSlots));
}
// The source rule: BFS from every vertex (or, past kAllSourcesWork vertex and edge visits, from
// sources worth kSampleWork, one at least, drawn with a fixed seed), keep those whose search needs
// the most levels, and of them take the first label in strcmp order: the most levels make the most
// launches and round trips, this lesson's case. Says which, of how many, and returns it.
static int chooseWordSource(const Graph* g, int* dist, int* order, int* levelStart) {
    int best = 0, mostLevels = 0, tied = 0;
    const long long visits = g->vertexCount + 2 * g->edgeCount;  // one search's, at most
    const int all = visits * g->vertexCount <= kAllSourcesWork;  // below 3 * 2^60: no overflow
    const long long tries = all ? g->vertexCount : (kSampleWork + visits - 1) / visits;
    uint64_t state = kRootSeed;
    for (long long t = 0; t < tries; ++t) {
        const int v = (int)(all ? (uint64_t)t : splitmix64(&state) % (uint64_t)g->vertexCount);
        const int levels = bfsCpu(g, v, dist, order, levelStart);
        if (levels > mostLevels) {  // every search has a level: the first source sets it
            mostLevels = levels;
            tied = 0;
        }
        tied += levels == mostLevels;
        if (levels == mostLevels && (tied == 1 || strcmp(labelOf(g, v), labelOf(g, best)) < 0))
            best = v;
    }
    printf(
        "  source: \"%s\" (vertex %d), first in alphabetical order among the %d words whose search "
        "needs the most levels (%d)%s",
        labelOf(g, best), best, tied, mostLevels, all ? "\n" : "");
    if (!all)
        printf(", of %lld sources drawn with seed 0x7ab1e (all %d would pass 2^27 visits)\n", tries,
               g->vertexCount);
    return best;
}
// Graph500 roots: drawn with a fixed seed among the vertices of degree >= 1, no root twice;
// returns how many.
static int chooseRoots(const Graph* g, int wanted, int* roots) {
    long long candidates = 0;
    for (int v = 0; v < g->vertexCount; ++v)
        candidates += degreeOf(g, v) > 0;
    wanted = wanted < candidates ? wanted : (int)candidates;
    uint64_t state = kRootSeed;
    for (int found = 0; found < wanted;) {
        const int v = (int)(splitmix64(&state) % (uint64_t)g->vertexCount);
        int fresh = degreeOf(g, v) > 0;
        for (int k = 0; k < found && fresh; ++k)
            fresh = roots[k] != v;
        if (fresh)
            roots[found++] = v;
    }
    return wanted;
}

// ---- Timing helper, launchers, and the judge's comparison ----

static BfsArrays arraysOf(const DeviceBfs* d, int heavyDegree) {
    const BfsArrays a = {d->rowOffsets,  d->colIndices,    d->dist,    d->queue,
                         d->visited,     d->counts,        d->pieces,  d->sink,
                         d->vertexCount, d->pieceCapacity, heavyDegree};
    return a;
}
// One level of the host loop. A timed level (a clock given, the level within the table) has events
// around its launch, and the balanced kernel runs it step by step, one launch a step (kUpTo), the
// claim step on copies of dist and visited, so that the search goes on undisturbed. The balanced
// grid: a chunk of vertices per block, and enough warps for the pieces (one each, or all the GPU
// holds at once).
static void launchLevel(const DeviceBfs* d, int mapping, const LevelWindow* w,
                        cudaEvent_t (*clock)[2 * kMaxTableLevels]) {
    static void (*const balanced[kStepCount])(BfsArrays, LevelWindow) = {
        expandBalancedKernel<kUpToSplit>, expandBalancedKernel<kUpToEdges>,
        expandBalancedKernel<kUpToVisited>, expandBalancedKernel<kUpToClaim>,
        expandBalancedKernel<kUpToQueue>};
    const int timed = clock != NULL && w->level < kMaxTableLevels;
    const int blocks = blocksFor(w->size, kThreadsPerBlock);
    const int pieceBlocks = blocksFor((long long)w->pieceSize * kWarpSize, kThreadsPerBlock);
    const int grid = max(blocks, min(pieceBlocks, d->residentBlocks));
    for (int step = timed && mapping == kMapBalanced ? kUpToSplit : kUpToQueue; step <= kUpToQueue;
         ++step) {
        BfsArrays a = arraysOf(d, mapping == kMapBalanced ? kHeavyDegree : kNoHeavyDegree);
        if (step == kUpToClaim) {  // the copies, before the clock starts
            CUDA_CHECK(cudaMemcpyAsync(d->scratchVisited, d->visited, d->visitedBytes,
                                       cudaMemcpyDeviceToDevice));
            CUDA_CHECK(
                cudaMemcpyAsync(d->scratchDist, d->dist, d->vertexBytes, cudaMemcpyDeviceToDevice));
            a.visited = d->scratchVisited;
            a.dist = d->scratchDist;
        }
        if (timed)
            CUDA_CHECK(cudaEventRecord(clock[step][2 * w->level]));
        if (mapping == kMapThread)
            expandThreadPerVertex<<<blocks, kThreadsPerBlock>>>(a, *w);
        else if (mapping == kMapWarp)
            expandWarpPerVertex<<<blocksFor((long long)w->size * kWarpSize, kThreadsPerBlock),
                                  kThreadsPerBlock>>>(a, *w);
        else
            balanced[step]<<<grid, kThreadsPerBlock>>>(a, *w);
        CUDA_CHECK(cudaGetLastError());
        if (timed)
            CUDA_CHECK(cudaEventRecord(clock[step][2 * w->level + 1]));
    }
}
// The host loop: per level one launch, then one copy of the next level's two counters back to
// the host, without which it has no grid size and cannot tell that the search is over. That
// copy waits for the kernel: a synchronisation in the middle of the algorithm, and it is the
// algorithm. clock: see launchLevel. Returns the number of levels.
// snippet: host-loop
static int runHostLoop(const DeviceBfs* d, int mapping, int source,
                       cudaEvent_t (*clock)[2 * kMaxTableLevels]) {
    const int heavyDegree = mapping == kMapBalanced ? kHeavyDegree : kNoHeavyDegree;
    const int resetBlocks = blocksFor(d->vertexCount, kThreadsPerBlock);
    bfsReset<<<resetBlocks, kThreadsPerBlock>>>(arraysOf(d, heavyDegree), source);
    CUDA_CHECK(cudaGetLastError());
    const int sourceDegree = d->hostRowOffsets[source + 1] - d->hostRowOffsets[source];
    LevelWindow w = {
        0, 0, 1, 0,
        sourceDegree >= heavyDegree ? (sourceDegree + kPieceEdges - 1) / kPieceEdges : 0};
    while (w.size > 0) {
        launchLevel(d, mapping, &w, clock);
        unsigned int next[2];  // its vertices, its pieces
        CUDA_CHECK(
            cudaMemcpy(next, &d->counts[2 * (w.level + 1)], sizeof(next), cudaMemcpyDeviceToHost));
        w = windowAfter(w, next[0], next[1], d->vertexCount, d->pieceCapacity);
    }
    return w.level;
}
// end snippet
// One whole search by any mapping; the device loops return -1 (the counters give their levels):
// one cooperative launch of every co-resident block, or one block with the state (on chip, the
// graph too) in dynamic shared memory.
static int runSearch(const DeviceBfs* d, int mapping, int source,
                     cudaEvent_t (*clock)[2 * kMaxTableLevels]) {
    if (mapping < kMapBlockLoop)
        return runHostLoop(d, mapping, source, clock);
    BfsArrays a = arraysOf(d, mapping == kMapGridLoop ? kHeavyDegree : kNoHeavyDegree);
    void* args[] = {&a, &source};
    if (mapping == kMapGridLoop) {
        CUDA_CHECK(cudaLaunchCooperativeKernel((void*)bfsGridLoop, dim3(d->gridLoopBlocks),
                                               dim3(kThreadsPerBlock), args, 0, 0));
    } else {
        const size_t shared = mapping == kMapOnChip ? d->graphShared : d->stateShared;
        bfsBlockLoop<<<1, kLoopBlockThreads, shared>>>(a, source, mapping == kMapOnChip);
    }
    CUDA_CHECK(cudaGetLastError());
    return -1;
}
// Mean milliseconds of `runs` whole searches between two events, after `warmups` untimed ones.
static float timeMs(const DeviceBfs* d, int mapping, int source, int warmups, int runs) {
    for (int i = 0; i < warmups; ++i)
        runSearch(d, mapping, source, NULL);  // module load, caches
    cudaEvent_t begin, end;
    float total = 0.0f;  // milliseconds
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaEventCreate(&begin));
    CUDA_CHECK(cudaEventCreate(&end));
    CUDA_CHECK(cudaEventRecord(begin));
    for (int i = 0; i < runs; ++i)
        runSearch(d, mapping, source, NULL);
    CUDA_CHECK(cudaEventRecord(end));
    CUDA_CHECK(cudaEventSynchronize(end));
    CUDA_CHECK(cudaEventElapsedTime(&total, begin, end));
    CUDA_CHECK(cudaEventDestroy(begin));
    CUDA_CHECK(cudaEventDestroy(end));
    return total / runs;
}
static void uploadGraph(const Graph* g, DeviceBfs* d) {
    d->vertexBytes = sizeof(int) * (size_t)g->vertexCount;
    d->vertexCount = g->vertexCount;
    const int entries = g->rowOffsets[g->vertexCount];
    d->hostRowOffsets = g->rowOffsets;
    d->pieceCapacity = entries / kPieceEdges + d->vertexCount;
    d->visitedBytes = sizeof(int) * (size_t)((g->vertexCount + 31) / 32);
    d->countBytes = 2 * d->vertexBytes + 2 * sizeof(int);
    CUDA_CHECK(cudaMalloc(&d->rowOffsets, d->vertexBytes + sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d->colIndices, sizeof(int) * (size_t)(entries > 0 ? entries : 1)));
    CUDA_CHECK(cudaMalloc(&d->dist, d->vertexBytes));
    CUDA_CHECK(cudaMalloc(&d->scratchDist, d->vertexBytes));
    CUDA_CHECK(cudaMalloc(&d->queue, d->vertexBytes));
    CUDA_CHECK(cudaMalloc(&d->visited, d->visitedBytes));
    CUDA_CHECK(cudaMalloc(&d->scratchVisited, d->visitedBytes));
    CUDA_CHECK(cudaMalloc(&d->pieces, sizeof(int2) * (size_t)d->pieceCapacity));
    CUDA_CHECK(cudaMalloc(&d->counts, d->countBytes));
    CUDA_CHECK(cudaMalloc(&d->sink, sizeof(unsigned long long)));
    CUDA_CHECK(cudaMemcpy(d->rowOffsets, g->rowOffsets, d->vertexBytes + sizeof(int),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->colIndices, g->colIndices, sizeof(int) * (size_t)entries,
                          cudaMemcpyHostToDevice));
    // Launch sizes: co-resident blocks of the two grid-wide kernels; the block loop's shared
    // memory (moveOnChip's layout) for the state, and for the state with the graph (0: no fit).
    int smCount = 0, gridLoopPerSm = 0, balancedPerSm = 0, sharedOptIn = 0;
    cudaFuncAttributes attributes;
    CUDA_CHECK(cudaDeviceGetAttribute(&smCount, cudaDevAttrMultiProcessorCount, 0));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&gridLoopPerSm, bfsGridLoop,
                                                             kThreadsPerBlock, 0));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &balancedPerSm, expandBalancedKernel<kUpToQueue>, kThreadsPerBlock, 0));
    d->gridLoopBlocks = gridLoopPerSm * smCount;
    d->residentBlocks = balancedPerSm * smCount;
    CUDA_CHECK(cudaDeviceGetAttribute(&sharedOptIn, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, bfsBlockLoop));
    const size_t room = (size_t)sharedOptIn - attributes.sharedSizeBytes;
    const size_t state = 2 * d->vertexBytes + d->countBytes + d->visitedBytes;
    const size_t graph = state + sizeof(int) * ((size_t)g->vertexCount + 1 + (size_t)entries);
    d->stateShared = state <= room ? state : 0;
    d->graphShared = graph <= room ? graph : 0;
    if (d->stateShared > 0)
        CUDA_CHECK(cudaFuncSetAttribute(bfsBlockLoop, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)(d->graphShared ? graph : state)));
}
// One search judged against the CPU: every distance, the level count, every level's size (their
// sum catches a vertex appended twice, whose distance is right). dist and the counters are
// poisoned first. Prints only a fault; returns 0 or 1.
static int checkSearch(const DeviceBfs* d, int mapping, const Search* want, int* gotDist,
                       unsigned int* gotCounts, const Graph* g) {
    const char* name = kMappingName[mapping];
    char label[24];
    CUDA_CHECK(cudaMemset(d->dist, 0x7f, d->vertexBytes));
    CUDA_CHECK(cudaMemset(d->counts, 0x7f, d->countBytes));
    const int hostLevels = runSearch(d, mapping, want->source, NULL);  // the copies wait for it
    CUDA_CHECK(cudaMemcpy(gotDist, d->dist, d->vertexBytes, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(gotCounts, d->counts, d->countBytes, cudaMemcpyDeviceToHost));
    long long total = 0;
    int v = 0, levels = 0, l = 0;
    while (v < d->vertexCount && gotDist[v] == want->dist[v])
        ++v;
    if (v < d->vertexCount)
        return fail(stdout, "  %s, source %d: distance of vertex %d (%s) is %d, want %d", name,
                    want->source, v, nameOf(g, v, label), gotDist[v], want->dist[v]);
    while (levels <= d->vertexCount && gotCounts[2 * levels] != 0u)
        total += gotCounts[2 * levels++];
    if (hostLevels >= 0 && hostLevels != levels)
        return fail(stdout, "  %s, source %d: the host loop ran %d levels, the counters hold %d",
                    name, want->source, hostLevels, levels);
    if (levels != want->levels)
        return fail(stdout, "  %s, source %d: %d levels, want %d", name, want->source, levels,
                    want->levels);
    while (l < levels && gotCounts[2 * l] == (unsigned int)want->levelSize[l])
        ++l;
    if (l < levels)
        return fail(stdout,
                    "  %s, source %d: level %d held %u vertices, want %d; frontiers held %lld in "
                    "all, want %d (a duplicate append?)",
                    name, want->source, l, gotCounts[2 * l], want->levelSize[l], total,
                    want->reached);
    return 0;
}

// ---- Plumbing: the graph builder, the readers, the generator, the flags ----

// Room for `need` elements of `size` bytes in *p, by doubling; 0 when out of memory (readers
// grow with what they read).
static int reserve(void** p, long long* cap, long long need, size_t size) {
    if (need <= *cap)
        return 1;
    const long long c = need > 2 * *cap ? (need > 1024 ? need : 1024) : 2 * *cap;
    void* bigger = realloc(*p, (size_t)c * size);
    if (bigger == NULL)
        return 0;
    *p = bigger;
    *cap = c;
    return 1;
}
// Symmetrises, drops self-loops and repeats, and sorts every row: each pair (a, b) enters as the
// entries a -> b and b -> a, placed by a counting sort on the row; then each row is sorted and its
// repeats squeezed out. 1 (the caller frees g): an int offset or memory overflows.
static int buildCsr(int vertexCount, const int* pairs, long long pairCount, Graph* g) {
    long long entries = 0, write = 0;
    for (long long p = 0; p < pairCount; ++p)
        entries += (pairs[2 * p] != pairs[2 * p + 1]) ? 2 : 0;
    g->vertexCount = vertexCount;
    g->pairCount = pairCount;
    g->selfLoops = pairCount - entries / 2;
    if (entries > INT_MAX - 1024)  // a stride past the last entry (a warp's, a piece's) fits an int
        return 1;
    // rowOffsets[v + 2] counts row v; summed, rowOffsets[v + 1] is row v's cursor, then its end.
    int* offsets = g->rowOffsets = (int*)calloc((size_t)vertexCount + 2, sizeof(int));
    g->colIndices = (int*)malloc(sizeof(int) * (size_t)(entries > 0 ? entries : 1));
    if (offsets == NULL || g->colIndices == NULL)
        return 1;
    for (long long i = 0; i < 2 * pairCount; ++i)
        offsets[pairs[i] + 2] += pairs[i] != pairs[i ^ 1];
    for (int v = 2; v <= vertexCount + 1; ++v)
        offsets[v] += offsets[v - 1];
    for (long long i = 0; i < 2 * pairCount; ++i)
        if (pairs[i] != pairs[i ^ 1])
            g->colIndices[offsets[pairs[i] + 1]++] = pairs[i ^ 1];
    for (int v = 0, begin = 0; v < vertexCount; ++v) {
        const int end = offsets[v + 1];
        qsort(g->colIndices + begin, (size_t)(end - begin), sizeof(int), compareInts);
        for (int e = begin; e < end; ++e)
            if (e == begin || g->colIndices[e] != g->colIndices[e - 1])
                g->colIndices[write++] = g->colIndices[e];
        offsets[v + 1] = (int)write;
        begin = end;
    }
    g->edgeCount = write / 2;
    return 0;
}

// Each reader refuses bad input with one line, `FILE: line N: what`, and frees what it allocated,
// before any CUDA call. The word-graph reader borrows the course reader's line reader and integer
// parser, so both count lines alike.

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

// The next line, or NULL at the end of the file (or after an error, *err set): then r->line is
// the line that is missing, so a complaint names it.
static char* nextLine(MmLines* r, int* err) {
    char* s = mmNextLine(r, err);
    if (s == NULL)
        r->line++;
    return s;
}
// word-graph.txt: `#` lines, a line `V E`, V labels (one word a line, vertex 0 first), then E
// lines `u v` numbered from 0 (repeats and self-loops are dropped by buildCsr). A label is
// positional: a blank line among them is an empty label; elsewhere blank lines are skipped. A
// line is read whole, so a fault is named for what it is. 0: g built; 1: refused, said why.
static int readWordGraph(MmLines* r, Graph* g, int** pairs) {
    int err = 0, n = 0, over;
    char *s, *tok[3];
    while (n == 0) {  // `#` lines and blank lines before the header are skipped
        s = nextLine(r, &err);
        if (s == NULL)
            return err ? 1 : mmFail(r, "end of file before the header line `V E`");
        if (s[0] != '#')
            n = mmSplit(s, tok, 3);
    }
    if (n != 2)
        return mmFail(r, "header must be `V E`, two counts, found %d fields", n);
    long long count[2], cap = 0, pairCap = 0;
    for (int k = 0; k < 2; ++k) {
        const char* what = k == 0 ? "vertex count" : "edge count";
        if (!mmInteger(tok[k], &count[k], &over))
            return mmFail(r, "%s '%s' is not an integer", what, mmQuote(tok[k]));
        if (over || count[k] < 1 - k || count[k] > kMaxCount)
            return mmFail(r, "%s %s is out of range %d..%d", what, mmQuote(tok[k]), 1 - k,
                          kMaxCount);
    }
    for (int v = 0; v < count[0]; ++v) {
        s = nextLine(r, &err);
        if (s == NULL)
            return err ? 1 : mmFail(r, "end of file after %d of %lld labels", v, count[0]);
        const size_t length = strlen(s);
        if (s[strspn(s, " \t")] == '\0')
            return mmFail(r, "label of vertex %d is empty", v);
        if (strcspn(s, " \t") != length)
            return mmFail(r, "label of vertex %d holds a space", v);
        if (length > (size_t)kMaxLabelLength)
            return mmFail(r,
                          "label of vertex %d is %zu characters, longer than the %d the word-graph "
                          "tool writes",
                          v, length, kMaxLabelLength);
        if (!reserve((void**)&g->labels, &cap, v + 1, kMaxLabelLength + 1))
            return mmFail(r, "out of host memory after %d labels", v);
        memcpy(labelOf(g, v), s, length + 1);
    }
    for (long long e = 0; e < count[1]; ++e) {
        for (n = 0; n == 0; n = mmSplit(s, tok, 3)) {  // blank lines are skipped
            s = nextLine(r, &err);
            if (s == NULL)
                return err ? 1 : mmFail(r, "end of file after %lld of %lld edges", e, count[1]);
        }
        if (n != 2)
            return mmFail(r, "want an edge `u v`, found %d fields", n);
        if (!reserve((void**)pairs, &pairCap, 2 * (e + 1), sizeof(int)))
            return mmFail(r, "out of host memory after %lld edges", e);
        for (int k = 0; k < 2; ++k) {
            long long u;
            if (!mmInteger(tok[k], &u, &over))
                return mmFail(r, "vertex '%s' is not an integer", mmQuote(tok[k]));
            if (over || u < 0 || u >= count[0])
                return mmFail(r, "vertex %s is out of range 0..%lld (vertices are numbered from 0)",
                              mmQuote(tok[k]), count[0] - 1);
            (*pairs)[2 * e + k] = (int)u;
        }
    }
    for (s = nextLine(r, &err); s != NULL; s = nextLine(r, &err))
        if (s[0] == '#')
            return mmFail(r, "a `#` line after the edges (comments go before the header)");
        else if (mmSplit(s, tok, 3) > 0)
            return mmFail(r, "more edges than the header's %lld", count[1]);
    return err || (buildCsr((int)count[0], *pairs, count[1], g) &&
                   fail(stderr, "%s: out of host memory for the graph", r->path));
}
// 0: loaded; 1: refused (said why), nothing held.
static int loadWordGraph(const char* path, Graph* g) {
    memset(g, 0, sizeof(*g));
    MmLines r = {fopen(path, "rb"), path, NULL, 1 << 16, 0, 0, 0, 0};
    const int missing = errno == ENOENT && path == kGraphPath;
    if (r.f == NULL)
        return fail(stderr, "%s: cannot open: %s%s", path, strerror(errno),
                    missing ? " (run the lesson from its own folder: cd day38-bfs)" : "");
    r.buf = (char*)allocate(path, (size_t)r.cap, "the line buffer");
    int* pairs = NULL;
    const int failed = r.buf == NULL || readWordGraph(&r, g, &pairs);
    free(r.buf);
    fclose(r.f);
    free(pairs);
    return failed && freeGraph(g);
}
// A Matrix Market graph from the reader's COO triples: every stored entry (i, j) is an edge
// whatever its value (BFS reads the pattern). A general file's (i, j) and (j, i) make one
// undirected edge; of a symmetric file's mirrored pair one is taken. Self-loops are dropped.
// `file` keeps the reader's counts (its entries freed) for the host part. 1: refused (said why).
// snippet: mtx-graph
static int loadMatrixMarketGraph(const char* path, Graph* g, MmMatrix* file) {
    memset(g, 0, sizeof(*g));
    if (mmRead(path, file))
        return 1;
    const char* fault = file->rows == 0          ? "needs at least one vertex"
                        : file->rows > kMaxCount ? "needs at most 1073741823 vertices (2^30 - 1)"
                                                 : NULL;
    if (file->rows != file->cols)
        fault = "needs a square matrix (a graph)";
    const double need = kHostBytesVertex * file->rows + kHostBytesEntry * file->entries;
    const double have = (double)sysconf(_SC_PHYS_PAGES) * (double)sysconf(_SC_PAGE_SIZE);
    if (fault == NULL && need > have) {
        mmFree(file);
        return fail(stderr, "%s: needs about %.0f bytes of host memory, this machine has %.0f",
                    path, need, have);
    }
    int* pairs = (int*)malloc(sizeof(int) * 2 * (size_t)(file->entries > 0 ? file->entries : 1));
    long long count = 0;
    for (int e = 0; pairs != NULL && e < file->entries; ++e) {
        const MmEntry t = file->entry[e];
        if (file->symmetry != MM_GENERAL && t.row < t.col)
            continue;  // its mirror is taken
        pairs[2 * count] = t.row;
        pairs[2 * count++ + 1] = t.col;
    }
    mmFree(file);
    const int failed = fault != NULL || pairs == NULL || buildCsr(file->rows, pairs, count, g);
    free(pairs);
    if (fault != NULL)
        return fail(stderr, "%s: %s, got %d x %d", path, fault, file->rows, file->cols);
    return failed && freeGraph(g) &&
           fail(stderr, "%s: out of host memory for the graph, or more than 2^31 adjacency entries",
                path);
}
// end snippet
// Graph500 Kronecker graph: each of edgeFactor * 2^scale edges picks a quadrant `scale` times,
// with probabilities A, B, C and D = 1 - A - B - C; the vertex numbers are then permuted (fixed
// seed), as Graph500 does. 0: built; 1: out of host memory (said so).
static int generateKronecker(int scale, Graph* g) {
    memset(g, 0, sizeof(*g));  // no labels: tables print v<number>
    const int vertexCount = 1 << scale;
    const long long pairCount = (long long)kKronEdgeFactor * vertexCount;
    int* pairs = (int*)malloc(sizeof(int) * 2 * (size_t)pairCount);
    int* permutation = (int*)malloc(sizeof(int) * (size_t)vertexCount);
    const int ok = pairs != NULL && permutation != NULL;
    // Thresholds on a 32-bit draw: one splitmix64 call gives two draws.
    const double unit = 4294967296.0;
    const uint32_t tA = (uint32_t)(kKronA * unit), tAB = (uint32_t)((kKronA + kKronB) * unit);
    const uint32_t tABC = (uint32_t)((kKronA + kKronB + kKronC) * unit);
    uint64_t state = kKronSeed;
    for (long long p = 0; ok && p < pairCount; ++p) {
        uint32_t u = 0, v = 0;
        for (int bit = 0; bit < scale; bit += 2) {
            const uint64_t draw = splitmix64(&state);
            for (int half = 0; half < 2 && bit + half < scale; ++half) {
                const uint32_t x = (uint32_t)(draw >> (32 * half));
                u = (u << 1) | (x >= tAB ? 1u : 0u);                           // down: C or D
                v = (v << 1) | ((x >= tA && x < tAB) || x >= tABC ? 1u : 0u);  // right: B or D
            }
        }
        pairs[2 * p] = (int)u;
        pairs[2 * p + 1] = (int)v;
    }
    for (int v = 0; ok && v < vertexCount; ++v)
        permutation[v] = v;
    for (int v = vertexCount - 1; ok && v > 0; --v)  // Fisher-Yates
        std::swap(permutation[v], permutation[splitmix64(&state) % (uint64_t)(v + 1)]);
    for (long long i = 0; ok && i < 2 * pairCount; ++i)
        pairs[i] = permutation[pairs[i]];
    // 2^25 * 16 * 2 < 2^31: no offset overflows.
    const int failed = !ok || buildCsr(vertexCount, pairs, pairCount, g);
    free(pairs);
    free(permutation);
    return failed && freeGraph(g) && fail(stderr, "Kronecker scale %d: out of host memory", scale);
}
// Step 1, over main's defaults. Returns 0 to run, 1 after refusing a flag (one line on stderr), 2
// after the help: the header's Run lines.
static int parseFlags(int argc, char** argv, Options* o) {
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0)
            return fputs(kUsage, stdout) < 0 ? 1 : 2;
    for (int i = 1; i < argc; ++i) {
        const char* flag = argv[i];
        const char* value = i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0 ? argv[i + 1] : NULL;
        char* end = NULL;
        const long v = value ? strtol(value, &end, 10) : 0;
        const int kron = strcmp(flag, "--kron") == 0,
                  counted = kron || strcmp(flag, "--roots") == 0;
        const int low = kron ? kMinScale : 1, high = kron ? kMaxScale : kMaxRoots;
        if (counted && (value == NULL || *end != '\0' || end == value || v < low || v > high))
            return fail(stderr,
                        value ? "flag %s: '%s' is not an integer from %d to %d"
                              : "flag %s: needs a value%s, an integer from %d to %d",
                        flag, value ? value : "", low, high);
        if (counted) {
            *(kron ? &o->scale : &o->roots) = (int)v;
            ++i;
        } else if (strcmp(flag, "--words") == 0) {
            if (value == NULL)
                return fail(stderr, "flag --words: needs a FILE in word-graph.txt's format");
            o->wordsPath = argv[++i];
        } else if (strcmp(flag, "--small") == 0 || strcmp(flag, "--full") == 0) {
            *(flag[2] == 's' ? &o->small : &o->full) = 1;
        } else if (flag[0] == '-') {
            return fail(stderr, "flag %s: unknown (--help lists every flag)", flag);
        } else if (o->matrixPath != NULL) {
            return fail(stderr, "%s: a second graph file (give one Matrix Market file at most)",
                        flag);
        } else {
            o->matrixPath = flag;
        }
    }
    if (o->matrixPath != NULL && o->scale >= 0)
        return fail(stderr, "flag --kron: a Matrix Market file was given too; choose one");
    if (o->full && (o->matrixPath != NULL || o->scale >= 0))
        return fail(stderr,
                    "flag --full: sweeps its own Kronecker scales; give no --kron or FILE.mtx");
    if (o->scale < 0)
        o->scale = o->small ? kSmallScale : kDefaultScale;
    if (o->roots < 0)
        o->roots = o->small ? kSmallRoots : o->full ? kSweepRoots : kDefaultRoots;
    return 0;
}
// ---- The steps of main ----

// The level launches of the last `kept` mappings (the grid loop last, the host loops first) over
// searches of `levels` levels in all, at most: every search judged once, warmed up and timed
// (runOnGpu), and by each host loop search 0 once more per timed run, level by level
// (printLevelTimes). The CPU's levels give it all, before any CUDA call.
static long long launchesOf(const Part* p, long long levels, int kept) {
    const int hostLoops = kept > kMapBlockLoop ? kept - kMapBlockLoop : 0;
    const int passes = 1 + (p->runs > 1 ? kWarmupRuns : 1) + p->runs;
    return levels * kept * passes + (long long)hostLoops * p->search[0].levels * p->runs;
}
// The GPU part's budget: over `left` level launches, fewer searches, then one timed run, then
// mappings left out from the first; the grid loop always runs. Says what it kept.
static void budgetPart(Part* p, int small, int words, long long left) {
    long long levels = 0;
    int kept = kMappingCount;
    p->runs = small ? kSmallTimedRuns : words ? kTimedRuns : kKronTimedRuns;
    for (int r = 0; r < p->count; ++r)
        levels += p->search[r].levels;
    while (p->count > 1 && launchesOf(p, levels, kept) > left)
        levels -= p->search[--p->count].levels;  // freePart frees it
    if (launchesOf(p, levels, kept) > left)
        p->runs = 1;
    while (kept > 1 && launchesOf(p, levels, kept) > left)
        --kept;
    p->mask = ~0u << (kMappingCount - kept);
    p->launches = launchesOf(p, levels, kept);
    printf(
        "  GPU budget: %lld of the %lld level launches left, at most: %d searches (%lld levels), "
        "%d timed runs, %d mappings%s\n",
        p->launches, left, p->count, levels, p->runs, kept,
        p->launches > left ? " (the grid loop runs over it)" : "");
}
// Step 3: a graph on the host: degrees, sources (the rule, or Graph500 roots), the judge's
// answers, search 0's levels, the budget of `left` level launches. 1: out of host memory (said so).
static int analyseGraph(const Options* o, Part* p, int words, const MmMatrix* file,
                        long long left) {
    static const char* const field[] = {"real", "integer", "pattern"};
    static const char* const symmetry[] = {"general", "symmetric", "skew-symmetric"};
    const Graph* g = &p->g;
    const size_t bytes = sizeof(int) * (size_t)g->vertexCount;
    int* order = (int*)allocate(p->name, bytes, "a search's order");
    int* levelStart =
        order ? (int*)allocate(p->name, bytes + sizeof(int), "a search's levels") : NULL;
    int* scratch = levelStart ? (int*)allocate(p->name, bytes, "degrees and distances") : NULL;
    int roots[kMaxRoots], failed = scratch == NULL;
    if (words || o->matrixPath)
        printf(
            "\nGraph: %s%s\n", words ? o->wordsPath : o->matrixPath,
            words ? "" : " (every entry an edge, values ignored; symmetrised, self-loops dropped)");
    else
        printf(
            "\nGraph: Graph500 Kronecker, scale %d, edge factor %d, A B C = %.2f %.2f %.2f, seed "
            "%#llx (symmetrised, self-loops and duplicates dropped)\n",
            o->scale, kKronEdgeFactor, kKronA, kKronB, kKronC, (unsigned long long)kKronSeed);
    if (!failed)
        printDegreeStats(g, scratch);
    if (!words && o->matrixPath)
        printf(
            "  read: %s %s, %d x %d, %lld entries declared, %lld duplicates merged (summed) by the "
            "reader\n",
            field[file->field], symmetry[file->symmetry], file->rows, file->cols, file->declared,
            file->merged);
    printf("  built from %lld pairs: %lld self-loops and %lld repeats of an edge dropped\n",
           g->pairCount, g->selfLoops, g->pairCount - g->selfLoops - g->edgeCount);
    if (!failed)
        p->count = words ? 1 : chooseRoots(g, o->roots, roots);
    if (words && !failed)
        roots[0] = chooseWordSource(g, scratch, order, levelStart);
    else if (!failed)
        printf(
            "\n%d roots of degree >= 1 (seed %#llx); Graph500 counts the edges of each root's "
            "component%s\n  root     vertex    reached        edges  levels\n",
            p->count, (unsigned long long)kRootSeed,
            o->full || p->count < 2 ? "" : " (root 0 here)");
    for (int r = p->count - 1; r >= 0 && !failed; --r)  // search 0 last: its frontiers in order
        failed = recordSearch(p, roots[r], order, levelStart, &p->search[r]);
    free(scratch);
    if (!failed) {
        // The Kronecker graph's root 0, every root when sweeping.
        for (int r = 0; !words && r < (o->full ? p->count : p->count > 0); ++r)
            printf("%6d %10d %10d %12lld %7d\n", r, roots[r], p->search[r].reached,
                   p->search[r].componentEdges, p->search[r].levels);
        if (words)
            printf(
                "\nBFS from \"%s\": the work of each level, counted from the graph (heavy = "
                "degree >= %d)\n",
                labelOf(g, roots[0]), kHeavyDegree);
        else if (p->count > 0)
            printf("\nBFS from root 0 (vertex %d): the work of each level\n", roots[0]);
        if (p->count > 0)
            printLevelWork(g, order, levelStart, p->search[0].levels);
        if (words)
            printf(
                "  reached %d of %d vertices in %d levels: a host loop makes %d launches and "
                "%d round trips\n",
                p->search[0].reached, g->vertexCount, p->search[0].levels, p->search[0].levels + 1,
                p->search[0].levels);
        budgetPart(p, o->small, words, left);
    }
    free(order);
    free(levelStart);
    return failed;
}
// Step 4: the first CUDA call: 0 (the no-device line) or 1; *cooperative: the grid loop can run
// (else the run fails).
static int deviceFound(int* cooperative) {
    int deviceCount = 0, driver = 0, runtime = 0;
    const cudaError_t probe = cudaGetDeviceCount(&deviceCount);
    if (probe != cudaSuccess || deviceCount == 0) {
        const int old = probe == cudaErrorInsufficientDriver;
        const int other = probe != cudaSuccess && probe != cudaErrorNoDevice && !old;
        printf("%s%s%s%s: the host part above ran, the GPU part did not\n",
               other ? "the GPU cannot be used (CUDA: " : "no GPU found",
               other ? cudaGetErrorString(probe) : "", other ? ")" : "",
               old ? ", or its driver is older than this program's CUDA runtime (nvidia-smi shows "
                     "both)"
                   : "");
        return 0;
    }
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    CUDA_CHECK(cudaDeviceGetAttribute(cooperative, cudaDevAttrCooperativeLaunch, 0));
    printf("\n~ GPU: {%s}, compute capability %d.%d, %d SMs, {driver %d.%d, runtime %d.%d}\n",
           prop.name, prop.major, prop.minor, prop.multiProcessorCount, driver / 1000,
           (driver % 1000) / 10, runtime / 1000, (runtime % 1000) / 10);
    if (!*cooperative)
        printf(
            "this device cannot launch cooperative kernels: the grid loop needs "
            "cudaDevAttrCooperativeLaunch\n");
    return 1;
}
// Judges every mapping in `mask` from every search; ok[m]: ran and passed. A block loop that
// does not fit the word graph fails.
static int checkMappings(const Options* o, const DeviceBfs* d, const Part* p, int cooperative,
                         int words, unsigned int mask, int* ok) {
    // What the GPU's search left, fetched for each search's judging.
    int* dist = (int*)allocate(p->name, d->vertexBytes, "the GPU's distances");
    unsigned int* counts =
        dist ? (unsigned int*)allocate(p->name, d->countBytes, "counters") : NULL;
    int failures = counts == NULL;
    long long reached = 0;
    for (int r = 0; r < p->count; ++r)
        reached += p->search[r].reached;
    printf(
        "\n%s: correctness (distances, level count, every level's size against the CPU) from %d "
        "searches\n",
        words           ? "Word graph"
        : o->matrixPath ? "Matrix Market graph"
                        : "Kronecker graph",
        p->count);
    for (int m = 0; m < kMappingCount; ++m) {
        const int wanted = mask >> m & 1u;
        const int fits =
            (m != kMapBlockLoop || d->stateShared > 0) && (m != kMapOnChip || d->graphShared > 0);
        ok[m] = wanted && fits && counts && (m != kMapGridLoop || cooperative);
        if (wanted && !fits)
            printf(
                "  %-20s not run: the %s of %d vertices does not fit one block's shared memory\n",
                kMappingName[m], m == kMapOnChip ? "graph and state" : "state", p->g.vertexCount);
        failures += wanted && !fits && words && o->wordsPath == kGraphPath;
        int bad = 0;
        for (int r = 0; ok[m] && r < p->count; ++r)
            bad += checkSearch(d, m, &p->search[r], dist, counts, &p->g);
        if (ok[m] && bad == 0)
            printf(
                "  %-20s every distance and level size right; the frontiers held %lld vertices, no "
                "duplicates\n",
                kMappingName[m], reached);
        ok[m] = ok[m] && bad == 0;
        failures += bad;
    }
    free(dist);
    free(counts);
    return failures;
}
// Search 0's levels by each host loop, mean microseconds of `runs` (the device loops have no
// host-visible level); for the balanced kernel each step too, from the split alone (scan, owner
// search, no read) through the edge reads, the visited filter and the claims to the whole: the
// differences are where its time goes, the last the queue and pieces. Timing runs are not
// judged again: the same searches just were. Tag L, the word graph: then where a host-loop
// level's time goes.
static void printLevelTimes(const DeviceBfs* d, const int* ok, const Part* p, int runs, char tag) {
    static cudaEvent_t clock[kStepCount][2 * kMaxTableLevels];
    const Search* s = &p->search[0];
    const int levels = s->levels < kMaxTableLevels ? s->levels : kMaxTableLevels;
    const int column[kMapBalanced + 1] = {0, 1, 2 + kUpToQueue};  // of each host loop's time
    double us[2 + kStepCount][kMaxTableLevels] = {{0}};           // us: thread, warp, the steps
    double total[2 + kStepCount] = {0}, meanUs[kMapBalanced + 1] = {0};
    long long edges[kMaxTableLevels] = {0};
    for (int v = 0; v < p->g.vertexCount; ++v)
        if (s->dist[v] >= 0 && s->dist[v] < levels)
            edges[s->dist[v]] += degreeOf(&p->g, v);
    for (int i = 0; i < kStepCount * 2 * kMaxTableLevels; ++i)
        CUDA_CHECK(cudaEventCreate(&clock[0][0] + i));
    for (int m = kMapThread; m <= kMapBalanced; ++m) {
        for (int run = 0; ok[m] && run < runs; ++run) {
            runSearch(d, m, s->source, clock);
            CUDA_CHECK(cudaDeviceSynchronize());
            // Level i / kStepCount, step i % kStepCount.
            for (int i = 0; i < levels * kStepCount; ++i) {
                const int l = i / kStepCount, step = i % kStepCount;
                float ms = 0.0f;
                if (m == kMapBalanced || step == kUpToQueue)
                    CUDA_CHECK(
                        cudaEventElapsedTime(&ms, clock[step][2 * l], clock[step][2 * l + 1]));
                us[m == kMapBalanced ? 2 + step : m][l] += 1000.0 * ms / runs;
            }
        }
    }
    for (int i = 0; i < kStepCount * 2 * kMaxTableLevels; ++i)
        CUDA_CHECK(cudaEventDestroy((&clock[0][0])[i]));
    printf(
        "\n%s: each level's kernel (%c1: level 1), us, host loops; the balanced kernel step by "
        "step\n%6s %9s %9s %9s %9s %9s %9s %9s %9s %9s  fastest\n",
        tag == 'L' ? "Word graph" : "Root 0", tag, "level", "frontier", "edges", "thread", "warp",
        "split", "+edges", "+visited", "+claim", "balanced");
    for (int l = 0; l < levels; ++l) {
        int fastest = -1;
        printf("~ %c%-3d %9d %9lld", tag, l, s->levelSize[l], edges[l]);
        for (int c = 0; c < 2 + kStepCount; ++c) {
            if (ok[c < 2 ? c : kMapBalanced])
                printf(" %9.2f", us[c][l]);
            else
                printf(" %9s", "-");
            total[c] += us[c][l];
        }
        for (int m = kMapThread; m <= kMapBalanced; ++m) {
            meanUs[m] += us[column[m]][l] / levels;
            if (ok[m] && (fastest < 0 || us[column[m]][l] < us[column[fastest]][l]))
                fastest = m;
        }
        printf("  {%s}\n", fastest >= 0 ? kMappingName[fastest] : "none");
    }
    // The word graph's levels are launch-paced: there its steps differ by noise.
    if (ok[kMapBalanced] && tag == 'R')
        printf(
            "~ balanced, the search's %d levels: %.1f us = %.1f split + %.1f edge reads + %.1f "
            "visited filter + %.1f claims + %.1f queue and pieces\n",
            levels, total[2 + kUpToQueue], total[2], total[3] - total[2], total[4] - total[3],
            total[5] - total[4], total[6] - total[5]);
    if (tag != 'L')
        return;
    printf(
        "Where a host-loop level's time goes (whole-search time per level minus the kernel's own "
        "time):\n");
    for (int m = kMapThread; m <= kMapBalanced; ++m) {
        const double levelUs = 1000.0 * p->ms[m][0] / s->levels;
        if (ok[m])
            printf(
                "~ %s: %.2f us per level = %.2f us in the kernel + %.2f us of launch, copy and "
                "wait\n",
                kMappingName[m], levelUs, meanUs[m], levelUs - meanUs[m]);
    }
}
// Step 5: a graph on the GPU: every mapping of `mask` judged, then each whole search timed
// (reset, launches and round trips included: the algorithm needs them), by the Graph500 rule on
// the big graph; then search 0 level by level (not when sweeping), and on the word graph a
// host-loop level's launch, copy and wait. hm: each mapping's GTEPS.
static int runOnGpu(const Options* o, Part* p, int cooperative, int words, unsigned int mask,
                    double* hm) {
    const int runs = p->runs, levels = p->search[0].levels;
    int ok[kMappingCount];
    DeviceBfs d;
    char label[64];
    size_t freeBytes = 0, totalBytes = 0;
    CUDA_CHECK(cudaMemGetInfo(&freeBytes, &totalBytes));
    const double need =
        kDeviceBytesVertex * p->g.vertexCount + kDeviceBytesEntry * 2.0 * p->g.edgeCount;
    if (need > (double)freeBytes)  // before any allocation: a failure, nothing to free
        return fail(stderr, "%s: needs about %.0f bytes of GPU memory, the GPU has %zu free",
                    p->name, need, freeBytes);
    uploadGraph(&p->g, &d);
    int failures = checkMappings(o, &d, p, cooperative, words, mask & p->mask, ok);
    if (words)
        printf(
            "\nWord graph: whole BFS from \"%s\", %d levels, mean of %d runs; reset included, and "
            "for the host loops %d launches and %d device-to-host copies\n%-22s %12s %14s %12s\n",
            labelOf(&p->g, p->search[0].source), levels, runs, levels + 1, levels, "mapping",
            "us per bfs", "us per level", "vs host warp");
    else
        printf(
            "\nWhole BFS per root, mean of %d runs after warm-up (thread per vertex: 1); GTEPS = "
            "component edges / time, harmonic mean over roots\n%-29s %12s %12s %12s %12s\n",
            runs, "graph, mapping", "mean ms", "GTEPS (hm)", "min GTEPS", "max GTEPS");
    for (int m = 0; m < kMappingCount; ++m) {
        for (int r = 0; ok[m] && r < p->count; ++r) {
            const int warmups = r > 0 || o->small || runs == 1 ? 1 : kWarmupRuns;
            // Kronecker searches by thread per vertex are the longest: one run is steady.
            const int timedRuns = !words && m == kMapThread ? 1 : runs;
            p->ms[m][r] = timeMs(&d, m, p->search[r].source, warmups, timedRuns);
            if (!(p->ms[m][r] > 0.0f))
                failures +=
                    fail(stdout, "  %s: a whole-search time is not positive", kMappingName[m]);
        }
    }
    for (int m = 0; m < kMappingCount; ++m) {
        double sumMs = 0.0, inverse = 0.0, low = 0.0, high = 0.0;
        for (int r = 0; r < p->count; ++r) {
            const double gteps = (double)p->search[r].componentEdges / (p->ms[m][r] * 1e-3) * 1e-9;
            sumMs += p->ms[m][r];
            inverse += 1.0 / gteps;
            low = r == 0 || gteps < low ? gteps : low;
            high = r == 0 || gteps > high ? gteps : high;
        }
        if (!ok[m] || p->count == 0)
            continue;
        hm[m] = p->count / inverse;
        snprintf(label, sizeof(label), o->matrixPath ? "mtx%.0d %s" : "kron%d %s",
                 o->matrixPath ? 0 : o->scale, kMappingName[m]);
        if (words)
            printf("~ %-20s %12.2f %14.2f %11.2fx\n", kMappingName[m], 1000.0 * sumMs,
                   1000.0 * sumMs / levels, ok[kMapWarp] ? p->ms[kMapWarp][0] / sumMs : 0.0);
        else
            printf("~ %-27s %12.3f %12.2f %12.2f %12.2f\n", label, sumMs / p->count, hm[m], low,
                   high);
    }
    if (!words && !o->full) {
        printf(
            "plotspec: gteps | bar | Graph500 GTEPS by mapping (harmonic mean over roots) | "
            "mapping | GTEPS\n");
        for (int m = 0; m < kMappingCount; ++m)
            if (ok[m] && p->count > 0)
                printf("~ plot: gteps | %s | %s | %.3f\n", kMappingName[m], kMappingName[m], hm[m]);
    }
    if (p->count > 0 && !o->full)
        printLevelTimes(&d, ok, p, runs, words ? 'L' : 'R');
    // Every array uploadGraph allocated.
    void* held[] = {d.rowOffsets, d.colIndices,     d.dist,   d.scratchDist, d.queue,
                    d.visited,    d.scratchVisited, d.pieces, d.counts,      d.sink};
    for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); ++i)
        CUDA_CHECK(cudaFree(held[i]));
    return failures;
}
// Step 6: the goals, and the headlines the course README reads.
static void printGoals(const Options* o, const Part* words, const double* hm) {
    const float warpMs = words->ms[kMapWarp][0];
    float deviceMs = 0.0f;  // the fastest device loop
    for (int m = kMapBlockLoop; m < kMappingCount; ++m)
        if (words->ms[m][0] > 0.0f && (deviceMs == 0.0f || words->ms[m][0] < deviceMs))
            deviceMs = words->ms[m][0];
    const double speedup = deviceMs > 0.0f && warpMs > 0.0f ? warpMs / deviceMs : 0.0;
    int best = 0;
    for (int m = 1; m < kMappingCount; ++m)
        best = hm[m] > hm[best] ? m : best;
    printf(
        "\n~ word graph: host-loop warp %.2f us, best device loop %.2f us: %.2fx (goal >= 10x: "
        "{%s})\n",
        1000.0 * warpMs, 1000.0 * deviceMs, speedup, speedup >= 10.0 ? "met" : "not met");
    if (o->matrixPath) {
        printf("~ Matrix Market graph: best mapping {%s} at %.2f GTEPS\n", kMappingName[best],
               hm[best]);
    } else {
        printf("~ Kronecker scale %d: best mapping {%s} at %.2f GTEPS", o->scale,
               kMappingName[best], hm[best]);
        printf(" (goal >= 40 at scale 21, top-down: {%s})\n", hm[best] >= 40.0 ? "met" : "not met");
    }
    printf("headline: device_loop_speedup_wordgraph = %.2f\n", speedup);
    if (o->matrixPath)
        printf("headline: mtx_gteps_best = %.2f\n", hm[best]);
    else
        printf("headline: kron%d_gteps_best = %.2f\n", o->scale, hm[best]);
}
// Frees a part's searches and its graph and returns 1, as freeGraph does.
static int freePart(Part* p) {
    for (int r = 0; r < kMaxRoots; ++r) {  // budgetPart's dropped searches too
        free(p->search[r].dist);
        free(p->search[r].levelSize);
    }
    memset(p->search, 0, sizeof(p->search));
    p->count = 0;
    return freeGraph(&p->g);
}

// --full, in place of steps 2 to 6: each Kronecker scale kSweepFirst..kSweepLast through steps
// 3 and 5 with the balanced host loop and the grid loop; one row and plot point each. Without a
// GPU it stops after the first host part.
static int runSweep(Options* o) {
    static Part big;
    int cooperative = 0, failures = 0;
    double hm[kSweepLast + 1][kMappingCount] = {{0}};
    long long edges[kSweepLast + 1] = {0};
    const int swept[2] = {kMapBalanced, kMapGridLoop};  // the balanced host loop, the grid loop
    printf(
        "Day 38, scaling run: Kronecker scales %d to %d, %d roots each; the balanced host loop and "
        "the grid loop\n",
        kSweepFirst, kSweepLast, o->roots);
    for (int s = kSweepFirst; s <= kSweepLast; ++s) {
        o->scale = s;
        big.name = "Kronecker graph";
        if (generateKronecker(s, &big.g))
            return EXIT_FAILURE;
        // Out of memory: 1; without a GPU (the first CUDA call), 2.
        const int stop = analyseGraph(o, &big, 0, NULL, kLevelBudget)     ? 1
                         : s == kSweepFirst && !deviceFound(&cooperative) ? 2
                                                                          : 0;
        if (stop && freePart(&big))
            return stop;
        const unsigned int mask = 1u << swept[0] | 1u << swept[1];
        failures += !cooperative + runOnGpu(o, &big, cooperative, 0, mask, hm[s]);
        edges[s] = big.g.edgeCount;
        freePart(&big);
    }
    printf(
        "\nScaling: Graph500 GTEPS (harmonic mean over the roots) against the graph\n%-14s %14s "
        "%12s %12s\n",
        "sweep, graph", "edges", "host loop", "device loop");
    for (int s = kSweepFirst; s <= kSweepLast; ++s)
        printf("~ sweep kron%-3d %14lld %12.2f %12.2f\n", s, edges[s], hm[s][kMapBalanced],
               hm[s][kMapGridLoop]);
    printf(
        "plotspec: scaling | logx | Graph500 GTEPS against graph size, Kronecker scales %d to %d | "
        "undirected edges | GTEPS\n",
        kSweepFirst, kSweepLast);
    for (int s = kSweepFirst; s <= kSweepLast; ++s)  // scale by scale: host loop, device loop
        for (int k = 0; k < 2; ++k)
            printf("~ plot: scaling | %s | %lld | %.3f\n", kMappingName[swept[k]], edges[s],
                   hm[s][swept[k]]);
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int main(int argc, char** argv) {
    static Part words, big;  // static: a Part holds its searches and times inline
    Options o = {-1, -1, 0, 0, NULL, kGraphPath};  // scale and roots: -1 until the flags are read
    MmMatrix file;  // the Matrix Market reader's counts, for the host part
    const int flags = parseFlags(argc, argv, &o);  // 1. flags (--help: exit 0)
    if (flags != 0)
        return flags == 2 ? EXIT_SUCCESS : EXIT_FAILURE;
    if (o.full)
        return runSweep(&o);   // --full: the scaling run instead
    words.name = o.wordsPath;  // 2. load and validate, generate
    big.name = o.matrixPath ? o.matrixPath : "Kronecker graph";
    if (loadWordGraph(o.wordsPath, &words.g))
        return EXIT_FAILURE;
    if ((o.matrixPath ? loadMatrixMarketGraph(o.matrixPath, &big.g, &file)
                      : generateKronecker(o.scale, &big.g)) &&
        freeGraph(&words.g))
        return EXIT_FAILURE;
    printf(
        "Day 38: level-synchronous BFS, thread / warp / edge-balanced mappings, host loop vs "
        "device loop\n");
    int status = 2, cooperative = 0;  // 3. host analysis: the judge's answers
    double hmWords[kMappingCount] = {0}, hm[kMappingCount] = {0};
    if (analyseGraph(&o, &words, 1, &file, kLevelBudget) ||
        analyseGraph(&o, &big, 0, &file, kLevelBudget - min(words.launches, kLevelBudget)))
        status = EXIT_FAILURE;
    else if (deviceFound(&cooperative)) {  // 4. the first CUDA call
        // 5. GPU part: judge, then time
        int failures = !cooperative + runOnGpu(&o, &words, cooperative, 1, ~0u, hmWords);
        failures += runOnGpu(&o, &big, cooperative, 0, ~0u, hm);
        printGoals(&o, &words, hm);  // 6. goals and headlines
        printf("%s\n", failures == 0 ? "PASS" : "FAIL");
        status = failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    }
    freePart(&words);
    freePart(&big);
    return status;
}
