// Day 38: breadth-first search, one level at a time, on the CUDA word graph.
//
// A level-synchronous BFS expands the whole frontier of level L before it starts level L + 1. Two questions:
// 1. How should a frontier be laid onto threads (thread per vertex, warp per vertex, edge-balanced), and where does
//    a level's time go (the split, the edge reads, the visited filter, the claims, the queue)?
// 2. Where does a small search's time go? A host loop pays a launch and a copy per level; device loops keep the
//    level loop on the GPU (one block, levels ending at __syncthreads; a cooperative grid, at grid.sync()).
// Data: word-graph.txt, words of the CUDA Toolkit headers' comments, an edge where two sit side by side three times
// or more: very uneven degrees, and small. For scale, Graph500 Kronecker graphs, in GTEPS by the Graph500 rule.
// Build: nvcc -O3 -arch=sm_90 -o bfs bfs.cu
// Run: ./bfs                        word graph + Kronecker scale 21, 16 roots (the verified run)
// Run: ./bfs --kron 22 --roots 32   another Kronecker scale (6 to 25), another number of roots (1 to 64)
// Run: ./bfs --small                word graph + Kronecker scale 12, 4 roots, 1 timed run (for compute-sanitizer)
// Run: ./bfs FILE.mtx               a Matrix Market graph instead of the Kronecker one
// Run: ./bfs --words FILE           a graph in word-graph.txt's format instead of word-graph.txt
// Run: ./bfs --full                 the scaling run instead: Kronecker scales 18 to 23, 2 roots each (--roots N)
// Run: ./bfs --help                 this list (-h too)
// Full: ./bfs --full
// Run it from this folder. Transcripts: evidence/run-*.txt and full-*.txt; evidence/notes.md: what was tried, measured.

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cooperative_groups.h>
#include <cooperative_groups/scan.h>
#include <cuda_runtime.h>
namespace cg = cooperative_groups;

// ---- Constants, each with its reason ----

static const char* const kGraphPath = "word-graph.txt";  // beside this file
static const int kWarpSize = 32;             // every GPU this course targets
static const int kThreadsPerBlock = 256;     // 8 warps: whole warps, and 8 blocks fit an SM
static const int kLoopBlockThreads = 1024;   // the single-block loop takes the largest block there is
static const int kMaxLabelLength = 63;       // the word-graph tool drops longer words
static const int kMaxCount = INT_MAX / 2;    // a word graph's V and E: 2 (V + 1) counters and 2E entries fit an int
static const int kWarmupRuns = 3;            // lazy loading: each kernel's first launch pays its load
static const int kTimedRuns = 20;            // word-graph searches are short and noisy; 20 steady the mean (notes.md)
static const int kKronTimedRuns = 5;         // per root; 16 roots make 80 timed searches per mapping
static const int kSmallTimedRuns = 1;        // --small feeds the sanitizer, which slows kernels many times over
static const int kMaxTableLevels = 64;       // per-level timing tables stop here (a Kronecker search has 6 or 7)
// A vertex with a block's worth of edges or more is "heavy": the edge-balanced mapping cuts its list into pieces of
// kPieceEdges entries, one warp a piece (8 loads a lane), over the whole grid, not a few blocks while the GPU idles.
static const int kHeavyDegree = 256, kPieceEdges = 256;
static const int kNoHeavyDegree = INT_MAX;   // "no vertex is heavy": mappings without pieces
static const int kLightEdges = 4;           // light edges a thread takes at a time: four loads in flight per lane
static const int kOutboxSlots = 1024;       // a block's claims between flushes; the rare overflow appends alone
static const int kAloneEdges = 4 * kWarpSize, kLoopWindows = 2;  // block loop: warp 0 alone up to 4 windows; 2 in flight
static const int kSearchBlocksPerSm = 6;     // blocks the search kernels keep resident: more warps, a few spills (notes.md)
// Graph500 Kronecker generator (Graph500 specification, section 3).
static const double kKronA = 0.57, kKronB = 0.19, kKronC = 0.19;  // D = 1 - A - B - C
static const int kKronEdgeFactor = 16;          // generated edges per vertex
static const int kDefaultScale = 21;            // 2^21 vertices: the verified run
static const int kSmallScale = 12;              // --small: 4096 vertices, small enough for racecheck
static const int kMinScale = 6, kMaxScale = 25; // below 6 few roots have degree >= 1; 2^25 * 16 * 2 entries fit an int
static const uint64_t kKronSeed = 0x5eed0038ULL;   // fixed: the same graph on every run
static const uint64_t kRootSeed = 0x0007ab1eULL;   // fixed: the same roots on every run
static const int kDefaultRoots = 16;            // Graph500 asks for 64; 16 keep the default run short (notes.md)
static const int kSmallRoots = 4;               // --small: enough roots to vary the search, few enough for racecheck
static const int kMaxRoots = 64;                // Graph500's number of roots
static const int kSweepFirst = 18, kSweepLast = 23, kSweepRoots = 2;  // --full: the scaling run; 2 roots keep its CPU searches short
static_assert(kThreadsPerBlock % kWarpSize == 0 && kLoopBlockThreads % kWarpSize == 0, "a block must be whole warps");
static_assert(kLoopBlockThreads <= 1024, "the block scan keeps one total per warp, 32 at most");

// ---- Error macro: a byte-identical copy of common/cuda-check.h ----

#define CUDA_CHECK(call)                                                   \
    do {                                                                   \
        cudaError_t status_ = (call);                                      \
        if (status_ != cudaSuccess) {                                      \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,  \
                    #call, cudaGetErrorString(status_));                   \
            exit(EXIT_FAILURE);                                            \
        }                                                                  \
    } while (0)

// ---- Data structures ----

// An undirected graph in CSR: v's neighbours are colIndices[rowOffsets[v] .. rowOffsets[v+1]), each edge once per
// direction, rows sorted, no self-loops or repeats. labels: NULL, or vertexCount strings of kMaxLabelLength + 1.
typedef struct {
    int vertexCount, *rowOffsets, *colIndices;  // vertexCount + 1, 2 * edgeCount
    char* labels; long long edgeCount, pairCount, selfLoops;  // undirected edges; the pairs it was built from, the self-loops among them
} Graph;
// One CPU search, kept for the judge: exact distances and each level's size.
typedef struct {
    int source, levels, reached;  // levels: non-empty frontiers, level 0 included
    long long componentEdges;     // Graph500: undirected edges inside the component
    int *dist, *levelSize;        // vertexCount (-1 where not reached), levels
} Search;
// Every device array one search touches: the frontiers in one queue, level after level, like the CPU's order; counts[2L]
// level L's vertices, counts[2L + 1] its pieces (edge ranges); visited, a bit per vertex; scratch copies, a sink.
typedef struct {
    int vertexCount, entryCount, pieceCapacity, visitedWords, *rowOffsets, *colIndices, *dist, *queue, *scratchDist;
    unsigned int *visited, *scratchVisited, *counts;  // counts: 2 * (vertexCount + 1)
    int2* pieces; unsigned long long* sink; const int* hostRowOffsets;           // the host's copy, to size grids without a round trip
    int gridLoopBlocks, residentBlocks;  // co-resident blocks of the cooperative and of the edge-balanced kernel
    size_t stateShared, graphShared;     // the block loop's dynamic shared bytes for the state, and for the graph too; 0: no fit
} DeviceBfs;
// What a kernel needs to expand one level, by value. capacity: vertexCount (no queue holds more distinct vertices);
// pieceCapacity: entries / kPieceEdges + vertexCount (every heavy list cut up); heavyDegree: kHeavyDegree or kNoHeavyDegree.
typedef struct {
    const int *rowOffsets, *colIndices; int *dist, *queue; unsigned int *visited, *counts; int2* pieces;
    unsigned long long* sink; int capacity, pieceCapacity, heavyDegree;
} BfsArrays;
// Where level `level` sits in the queue (its `size` vertices from slot `start`) and in the piece list.
typedef struct { int level, start, size, pieceStart, pieceSize; } LevelWindow;
// The steps of the balanced kernel that the per-level table times, each the one before plus one more part of the work.
enum { kUpToSplit, kUpToEdges, kUpToVisited, kUpToClaim, kUpToQueue, kStepCount };
static const char* const kStepName[kStepCount] = {"split", "+edges", "+visited", "+claim", "balanced"};
enum { kMapThread, kMapWarp, kMapBalanced, kMapBlockLoop, kMapOnChip, kMapGridLoop, kMappingCount };
static const char* const kMappingName[kMappingCount] = {"host loop, thread", "host loop, warp", "host loop, balanced", "device loop, block",
                                                        "device loop, on chip", "device loop, grid"};

typedef struct { int scale, roots, small, full; const char *matrixPath, *wordsPath; } Options;  // matrixPath NULL: Kronecker

// ---- Small host helpers ----

// splitmix64: a fixed-seed generator written out here, so the Kronecker graph and the roots are the same everywhere.
static uint64_t splitmix64(uint64_t* state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL; z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static int degreeOf(const Graph* g, int v) { return g->rowOffsets[v + 1] - g->rowOffsets[v]; }
static char* labelOf(const Graph* g, int v) { return g->labels + (size_t)v * (kMaxLabelLength + 1); }
static int blocksFor(long long threads, int perBlock) { return (int)((threads + perBlock - 1) / perBlock); }
static int compareInts(const void* a, const void* b) { return (*(const int*)a > *(const int*)b) - (*(const int*)a < *(const int*)b); }

static const char* nameOf(const Graph* g, int v, char* buffer) { return g->labels ? labelOf(g, v) : (snprintf(buffer, 24, "v%d", v), buffer); }
static void freeGraph(Graph* g) { free(g->rowOffsets), free(g->colIndices), free(g->labels), memset(g, 0, sizeof(*g)); }
// Room for `need` elements of `size` bytes in *p, by doubling; 0 when out of memory (readers grow with what they read).
static int reserve(void** p, long long* cap, long long need, size_t size) {
    if (need <= *cap) return 1;
    const long long c = need > 2 * *cap ? (need > 1024 ? need : 1024) : 2 * *cap; void* bigger = realloc(*p, (size_t)c * size);
    if (bigger != NULL) *p = bigger, *cap = c;
    return bigger != NULL;
}
// One stable counting-sort pass of 64-bit keys by their digit (key >> shift) & (2^bits - 1). count: 2^bits slots.
static void radixPass(const uint64_t* in, uint64_t* out, long long n, int shift, int bits, long long* count) {
    const uint64_t mask = (1ULL << bits) - 1; memset(count, 0, sizeof(long long) << bits);
    for (long long i = 0; i < n; ++i) ++count[in[i] >> shift & mask];
    for (long long digit = 0, sum = 0; digit <= (long long)mask; ++digit) sum += count[digit], count[digit] = sum - count[digit];
    for (long long i = 0; i < n; ++i) out[count[in[i] >> shift & mask]++] = in[i];
}
// Symmetrises, drops self-loops and duplicates, and sorts every row: each pair (a, b) enters as the keys a:b and b:a
// (row high); an LSD radix sort by column, then row, in digits of half a vertex number (a few thousand buckets a pass,
// which caches keep up with), and a sweep drops the repeats. 0 (the caller frees g): an int offset or memory overflows.
static int buildCsr(int vertexCount, const int* pairs, long long pairCount, Graph* g) {
    long long entries = 0, write = 0;
    for (long long p = 0; p < pairCount; ++p) entries += (pairs[2 * p] != pairs[2 * p + 1]) ? 2 : 0;
    g->vertexCount = vertexCount, g->pairCount = pairCount, g->selfLoops = pairCount - entries / 2;
    if (entries > INT_MAX) return 0;
    int bits = 1;
    while (bits < 31 && (1LL << bits) < vertexCount) ++bits;
    const int digit = (bits + 1) / 2;
    uint64_t *key = (uint64_t*)malloc(sizeof(uint64_t) * (size_t)(entries + 1)), *spare = (uint64_t*)malloc(sizeof(uint64_t) * (size_t)(entries + 1));
    long long* count = (long long*)malloc(sizeof(long long) << digit); g->rowOffsets = (int*)calloc((size_t)vertexCount + 1, sizeof(int));
    g->colIndices = (int*)malloc(sizeof(int) * (size_t)(entries > 0 ? entries : 1));
    const int ok = key && spare && count && g->rowOffsets && g->colIndices;
    for (long long p = 0; ok && p < pairCount; ++p) {
        const uint64_t a = (uint64_t)pairs[2 * p], b = (uint64_t)pairs[2 * p + 1];
        if (a != b) key[write++] = a << 32 | b, key[write++] = b << 32 | a;
    }
    for (int pass = 0; ok && pass < 4; ++pass)  // column low digit, column high, row low, row high; key to spare and back
        radixPass(pass % 2 ? spare : key, pass % 2 ? key : spare, entries, (pass / 2) * 32 + (pass % 2) * digit, digit, count);
    write = 0;
    for (long long i = 0; ok && i < entries; ++i) {
        if (i > 0 && key[i] == key[i - 1]) continue;
        g->colIndices[write++] = (int)(key[i] & 0xffffffffu), ++g->rowOffsets[(key[i] >> 32) + 1];
    }
    for (int v = 0; ok && v < vertexCount; ++v) g->rowOffsets[v + 1] += g->rowOffsets[v];
    g->edgeCount = write / 2;
    return free(key), free(spare), free(count), ok;
}

// ---- Input loaders and the generator ----
// Each refuses bad input with one line, `FILE: line N: what`, and frees what it allocated, before any CUDA call. The
// word-graph reader borrows the course reader's line reader and integer parser, so both count lines alike.

// ---- begin common/mmio.h: the course's Matrix Market reader, copied verbatim; make check compares it ----
// mmRead() turns a `coordinate` file into 0-based COO triples sorted by (row, column), duplicates
// summed, a symmetric file's entry standing for (i, j) and (j, i). Anything else gets one line on
// stderr, `FILE: line N: what is wrong` (indices 1-based, as in the file), with nothing left held.
// Arrays grow with the entries read, never with the size line's claim: a lying header costs nothing.
#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum MmField { MM_REAL, MM_INTEGER, MM_PATTERN };
enum MmSymmetry { MM_GENERAL, MM_SYMMETRIC, MM_SKEW_SYMMETRIC };
// One entry in 16 bytes, so that sorting moves one cache line's share, not three.
typedef struct { int row, col; double val; } MmEntry;  // 0-based; val 1.0 in a pattern file
typedef struct {
    int rows, cols, entries;     // entries: stored after expansion and merging, sorted by (row, col)
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

typedef struct { FILE* f; const char* path; char* buf; long cap, start, end; long long line; int eof; } MmLines;

static void mmFree(MmMatrix* m) { free(m->entry); m->entry = NULL; m->entries = 0; }

static int mmFail(const MmLines* r, const char* fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "%s: line %lld: ", r->path, r->line), vfprintf(stderr, fmt, ap), fputc('\n', stderr);
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
            if (len > 0 && s[len - 1] == '\r') len--;
            s[len] = '\0';  // the buffer keeps one spare byte for this
            r->line++;
            return s;
        }
        if (r->eof) return NULL;
        memmove(r->buf, s, (size_t)(r->end - r->start));
        r->end -= r->start, r->start = 0;
        if (r->end + 1 >= r->cap) {
            char* bigger = r->cap < MM_MAX_LINE ? (char*)realloc(r->buf, (size_t)r->cap * 2) : NULL;
            if (!bigger) { r->line++; *err = mmFail(r, "longer than %d bytes", MM_MAX_LINE); return NULL; }
            r->buf = bigger, r->cap *= 2;
        }
        size_t got = fread(r->buf + r->end, 1, (size_t)(r->cap - 1 - r->end), r->f);
        r->end += (long)got;
        if (got > 0) continue;
        if (ferror(r->f)) { fprintf(stderr, "%s: cannot read: %s\n", r->path, strerror(errno)); *err = 1; return NULL; }
        r->eof = 1;
    }
}

// Splits s in place at blanks; returns the field count (0 for a blank line), keeping up to cap.
static int mmSplit(char* s, char** tok, int cap) {
    int n = 0;
    for (char* t = strtok(s, " \t"); t; t = strtok(NULL, " \t")) if (n++ < cap) tok[n - 1] = t;
    return n;
}

// The next line that is neither a comment nor blank, split; NULL at the end or after an error.
static char* mmNextData(MmLines* r, int* err, char** tok, int cap, int* n) {
    char* s;
    while ((s = mmNextLine(r, err)) && (s[0] == '%' || (*n = mmSplit(s, tok, cap)) == 0)) {}
    return s;
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
// rounding, so it equals strtod's correctly rounded answer (Clinger's fast path); anything else goes
// to strtod itself.
static double mmValue(const char* s, char** end) {
    static const double kPow10[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                                      1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
    const char* p = s + (*s == '+' || *s == '-');
    int digits = 0, scale = 0, over;
    long long exponent = 0;
    unsigned long long mantissa = 0;  // unsigned: 20 digits wrap harmlessly before strtod takes over
    for (; *p >= '0' && *p <= '9'; p++, digits++) mantissa = mantissa * 10 + (unsigned long long)(*p - '0');
    if (*p == '.')
        for (p++; *p >= '0' && *p <= '9'; p++, digits++, scale--) mantissa = mantissa * 10 + (unsigned long long)(*p - '0');
    if ((*p == 'e' || *p == 'E') && mmInteger(p + 1, &exponent, &over) && !over && llabs(exponent) < 400) {
        scale += (int)exponent;
        p += strlen(p);
    }
    if (digits == 0 || digits > 15 || *p != '\0' || scale < -22 || scale > 22) return strtod(s, end);
    *end = (char*)p;
    const double v = scale < 0 ? (double)mantissa / kPow10[-scale] : (double)mantissa * kPow10[scale];
    return *s == '-' ? -v : v;
}

static int mmHeader(MmLines* r, MmMatrix* m) {
    static const char* const kFields[] = {"real", "integer", "pattern"};
    static const char* const kSymmetries[] = {"general", "symmetric", "skew-symmetric"};
    int err = 0, n = 0, f = 0, y = 0;
    char *tok[6], *s = mmNextLine(r, &err);
    if (err) return 1;
    if (!s) { r->line = 1; return mmFail(r, "empty file, expected a %%%%MatrixMarket banner"); }
    n = mmSplit(s, tok, 6);
    for (int i = 0; i < n && i < 5; i++) for (char* c = tok[i]; *c; c++) *c = (char)tolower((unsigned char)*c);
    if (n == 0 || strcmp(tok[0], "%%matrixmarket") != 0) return mmFail(r, "not a Matrix Market file (no %%%%MatrixMarket banner)");
    if (n != 5) return mmFail(r, "banner must be `%%%%MatrixMarket matrix coordinate FIELD SYMMETRY`, found %d words", n);
    if (strcmp(tok[1], "matrix") != 0) return mmFail(r, "unsupported object '%s' (want matrix)", tok[1]);
    if (strcmp(tok[2], "coordinate") != 0) return mmFail(r, "unsupported format '%s' (want coordinate)", tok[2]);
    while (f < 3 && strcmp(tok[3], kFields[f]) != 0) f++;
    while (y < 3 && strcmp(tok[4], kSymmetries[y]) != 0) y++;
    if (f == 3) return mmFail(r, "unsupported field '%s' (want real, integer or pattern)", tok[3]);
    if (y == 3) return mmFail(r, "unsupported symmetry '%s' (want general, symmetric or skew-symmetric)", tok[4]);
    m->field = (enum MmField)f, m->symmetry = (enum MmSymmetry)y;
    if (m->field == MM_PATTERN && m->symmetry == MM_SKEW_SYMMETRIC) return mmFail(r, "a pattern matrix cannot be skew-symmetric");

    if (!(s = mmNextData(r, &err, tok, 6, &n))) {
        if (err) return 1;
        r->line++;
        return mmFail(r, "end of file before the size line `ROWS COLS ENTRIES`");
    }
    long long size[3];
    int overflow = 0, over;  // size-line fields too big for long long
    if (n != 3) return mmFail(r, "bad size line, want ROWS COLS ENTRIES as integers, found %d fields", n);
    for (int i = 0; i < 3; i++) {
        if (!mmInteger(tok[i], &size[i], &over)) return mmFail(r, "bad size line: '%s' is not an integer", tok[i]);
        if (size[i] < 0) return mmFail(r, "bad size line: '%s' is negative", tok[i]);
        overflow |= over;
    }
    if (overflow || size[0] > INT_MAX || size[1] > INT_MAX || size[2] > INT_MAX)
        return mmFail(r, "sizes %s x %s with %s entries exceed the course's 32-bit indices (each must be below 2^31)",
                      tok[0], tok[1], tok[2]);
    if (m->symmetry != MM_GENERAL && size[0] != size[1])
        return mmFail(r, "a %s matrix must be square, not %lld x %lld", kSymmetries[y], size[0], size[1]);
    long long dimBytes = MM_BYTES_PER_DIM * (size[0] + size[1] + 2), allowed = MM_DIM_BYTES_PER_ENTRY * size[2];
    if (allowed < MM_DIM_BYTES_FLOOR) allowed = MM_DIM_BYTES_FLOOR;
    if (dimBytes > allowed)
        return mmFail(r, "%lld x %lld for %lld entries would need %lld bytes of per-row and per-column arrays "
                      "(at most %lld for this many entries)", size[0], size[1], size[2], dimBytes, allowed);
    m->rows = (int)size[0], m->cols = (int)size[1], m->declared = size[2];
    return 0;
}

// Reads the entries into m->entry (count of them, a symmetric entry and its mirror counted twice).
static int mmEntries(MmLines* r, MmMatrix* m, long long* count) {
    const int want = m->field == MM_PATTERN ? 2 : 3;
    long long cap = 0, seen = 0, ij[2], iv;
    int err = 0, n = 0, over;
    char *tok[4], *end;
    while (mmNextData(r, &err, tok, 4, &n)) {
        if (seen == m->declared) return mmFail(r, "more entries than the %lld declared", m->declared);
        if (n != want) return mmFail(r, want == 2 ? "want ROW COL, found %d fields" : "want ROW COL VALUE, found %d fields", n);
        for (int k = 0; k < 2; k++) {
            const char* what = k == 0 ? "row" : "column";
            const long long hi = k == 0 ? m->rows : m->cols;
            if (!mmInteger(tok[k], &ij[k], &over)) return mmFail(r, "%s index '%s' is not an integer", what, tok[k]);
            if (over || ij[k] < 1 || ij[k] > hi) return mmFail(r, "%s index %s outside 1..%lld (indices are 1-based)", what, tok[k], hi);
        }
        double v = 1.0;
        if (want == 3) {
            if (m->field == MM_INTEGER && !mmInteger(tok[2], &iv, &over))
                return mmFail(r, "value '%s' is not an integer (the field is integer)", tok[2]);
            v = mmValue(tok[2], &end);
            if (end == tok[2] || *end != '\0') return mmFail(r, "value '%s' is not a number", tok[2]);
            if (!(fabs(v) <= FLT_MAX)) return mmFail(r, "value '%s' is not a finite fp32 number", tok[2]);
        }
        if (m->symmetry == MM_SKEW_SYMMETRIC && ij[0] == ij[1])
            return mmFail(r, "diagonal entry (%lld, %lld) in a skew-symmetric file, whose diagonal is zero", ij[0], ij[1]);
        const int mirror = m->symmetry != MM_GENERAL && ij[0] != ij[1];
        if (*count + 1 + mirror > INT_MAX) return mmFail(r, "more than %d stored entries, beyond the course's 32-bit offsets", INT_MAX);
        if (*count + 2 > cap) {
            const long long bigger = cap ? cap * 2 : 1024;
            MmEntry* grown = (MmEntry*)realloc(m->entry, (size_t)bigger * sizeof(MmEntry));
            if (!grown) return mmFail(r, "out of host memory after %lld entries", *count);
            m->entry = grown, cap = bigger;
        }
        const MmEntry e = {(int)ij[0] - 1, (int)ij[1] - 1, v}, t = {e.col, e.row, m->symmetry == MM_SKEW_SYMMETRIC ? -v : v};
        m->entry[(*count)++] = e;
        if (mirror) m->entry[(*count)++] = t;
        seen++;
    }
    if (err) return 1;
    if (seen < m->declared) { r->line++; return mmFail(r, "end of file after %lld of %lld declared entries", seen, m->declared); }
    return 0;
}

static int mmByColumn(const void* a, const void* b) {
    const int x = ((const MmEntry*)a)->col, y = ((const MmEntry*)b)->col;
    return (x > y) - (x < y);
}

// A counting sort by row (skipped when the file is in row order already), then each row sorted by
// column: O(entries + rows) moves and short sorts. Duplicates are then neighbours and are summed.
static int mmSortAndMerge(MmMatrix* m, long long n) {
    long long e = 1, kept = 0;
    while (e < n && m->entry[e - 1].row <= m->entry[e].row) e++;
    const int inRowOrder = e >= n;  // as most files are, so no scatter and no second array
    int* rowStart = (int*)calloc((size_t)m->rows + 1, sizeof(int));
    int* next = (int*)malloc(((size_t)m->rows + 1) * sizeof(int));
    MmEntry* sorted = inRowOrder ? NULL : (MmEntry*)malloc((size_t)(n ? n : 1) * sizeof(MmEntry));
    if (!rowStart || !next || (!inRowOrder && !sorted)) { free(rowStart); free(next); free(sorted); return 1; }
    for (e = 0; e < n; e++) rowStart[m->entry[e].row + 1]++;
    for (int i = 0; i < m->rows; i++) rowStart[i + 1] += rowStart[i];
    if (!inRowOrder) {
        memcpy(next, rowStart, ((size_t)m->rows + 1) * sizeof(int));
        for (e = 0; e < n; e++) sorted[next[m->entry[e].row]++] = m->entry[e];
        free(m->entry);
        m->entry = sorted;
    }
    for (int i = 0; i < m->rows; i++) {
        MmEntry* row = m->entry + rowStart[i];
        const int len = rowStart[i + 1] - rowStart[i];
        if (len > 32) { qsort(row, (size_t)len, sizeof(MmEntry), mmByColumn); continue; }
        for (int k = 1; k < len; k++)  // short rows: an insertion sort beats qsort's calls
            for (int j = k; j > 0 && row[j - 1].col > row[j].col; j--) { const MmEntry t = row[j]; row[j] = row[j - 1], row[j - 1] = t; }
    }
    free(rowStart), free(next);
    for (e = 0; e < n; e++) {
        MmEntry* last = kept > 0 ? &m->entry[kept - 1] : NULL;
        if (last && last->row == m->entry[e].row && last->col == m->entry[e].col) last->val += m->entry[e].val;
        else m->entry[kept++] = m->entry[e];
    }
    m->merged = n - kept, m->entries = (int)kept;
    return 0;
}

// 0 on success; 1 after printing the one line that says why, with nothing held.
static int mmRead(const char* path, MmMatrix* m) {
    memset(m, 0, sizeof(*m));
    MmLines r = {NULL, path, NULL, 1 << 20, 0, 0, 0, 0};
    long long count = 0;
    if (!(r.f = fopen(path, "rb"))) { fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno)); return 1; }
    r.buf = (char*)malloc((size_t)r.cap);
    int failed = !r.buf ? (fprintf(stderr, "%s: out of host memory\n", path), 1) : mmHeader(&r, m);
    if (!failed) failed = mmEntries(&r, m, &count);
    if (!failed && mmSortAndMerge(m, count)) failed = mmFail(&r, "out of host memory sorting %lld entries", count);
    free(r.buf), fclose(r.f);
    if (failed) mmFree(m);
    return failed;
}
// ---- end common/mmio.h ----

// word-graph.txt: `#` lines, a line `V E`, V labels (one word a line, vertex 0 first), then E lines `u v` numbered from
// 0 (repeats and self-loops are dropped by buildCsr). A label is positional: a blank line among them is an empty label;
// elsewhere blank lines are skipped. A line is read whole, so a fault is named for what it is. 0: g built; 1: refused, said why.
static int readWordGraph(MmLines* r, Graph* g, int** pairs) {
    int err = 0, n = 0, over; char *s, *tok[3];
    while ((s = mmNextLine(r, &err)) && (s[0] == '#' || (n = mmSplit(s, tok, 3)) == 0)) {}
    if (!s) return err ? 1 : (r->line++, mmFail(r, "end of file before the header line `V E`"));
    if (n != 2) return mmFail(r, "header must be `V E`, two counts, found %d fields", n);
    long long count[2], cap = 0, pairCap = 0;
    for (int k = 0; k < 2; ++k) {
        const char* what = k == 0 ? "vertex count" : "edge count";
        if (!mmInteger(tok[k], &count[k], &over)) return mmFail(r, "%s '%s' is not an integer", what, tok[k]);
        if (over || count[k] < 1 - k || count[k] > kMaxCount) return mmFail(r, "%s %s is out of range %d..%d", what, tok[k], 1 - k, kMaxCount);
    }
    for (int v = 0; v < count[0]; ++v) {
        if (!(s = mmNextLine(r, &err))) return err ? 1 : (r->line++, mmFail(r, "end of file after %d of %lld labels", v, count[0]));
        const size_t length = strlen(s);
        if (s[strspn(s, " \t")] == '\0') return mmFail(r, "label of vertex %d is empty", v);
        if (strcspn(s, " \t") != length) return mmFail(r, "label of vertex %d holds a space", v);
        if (length > (size_t)kMaxLabelLength)
            return mmFail(r, "label of vertex %d is %zu characters, longer than the %d the word-graph tool writes", v, length, kMaxLabelLength);
        if (!reserve((void**)&g->labels, &cap, v + 1, kMaxLabelLength + 1)) return mmFail(r, "out of host memory after %d labels", v);
        memcpy(labelOf(g, v), s, length + 1);
    }
    for (long long e = 0; e < count[1]; ++e) {
        while ((s = mmNextLine(r, &err)) && (n = mmSplit(s, tok, 3)) == 0) {}
        if (!s) return err ? 1 : (r->line++, mmFail(r, "end of file after %lld of %lld edges", e, count[1]));
        if (n != 2) return mmFail(r, "want an edge `u v`, found %d fields", n);
        long long uv[2];
        for (int k = 0; k < 2; ++k) {
            if (!mmInteger(tok[k], &uv[k], &over)) return mmFail(r, "vertex '%s' is not an integer", tok[k]);
            if (over || uv[k] < 0 || uv[k] >= count[0])
                return mmFail(r, "vertex %s is out of range 0..%lld (vertices are numbered from 0)", tok[k], count[0] - 1);
        }
        if (!reserve((void**)pairs, &pairCap, 2 * (e + 1), sizeof(int))) return mmFail(r, "out of host memory after %lld edges", e);
        (*pairs)[2 * e] = (int)uv[0], (*pairs)[2 * e + 1] = (int)uv[1];
    }
    while ((s = mmNextLine(r, &err))) if (mmSplit(s, tok, 3) > 0) return mmFail(r, "more edges than the header's %lld", count[1]);
    if (!err && !buildCsr((int)count[0], *pairs, count[1], g)) return fprintf(stderr, "%s: out of host memory for the graph\n", r->path), 1;
    return err;
}
static int loadWordGraph(const char* path, Graph* g) {
    memset(g, 0, sizeof(*g));
    MmLines r = {fopen(path, "rb"), path, NULL, 1 << 16, 0, 0, 0, 0};
    if (r.f == NULL) return fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno)), 0;
    r.buf = (char*)malloc((size_t)r.cap);
    int* pairs = NULL;
    const int failed = r.buf == NULL ? (fprintf(stderr, "%s: out of host memory\n", path), 1) : readWordGraph(&r, g, &pairs);
    free(r.buf), fclose(r.f), free(pairs);
    if (failed) freeGraph(g);
    return !failed;
}
// A Matrix Market graph from the reader's COO triples: every stored entry (i, j) is an edge whatever its value (BFS
// reads the pattern). A general file's (i, j) and (j, i) make one undirected edge; of a symmetric file's mirrored pair
// one is taken. Self-loops are dropped. `file` keeps the reader's counts (its entries freed) for the host part.
// snippet: mtx-graph
static int loadMatrixMarketGraph(const char* path, Graph* g, MmMatrix* file) {
    memset(g, 0, sizeof(*g));
    if (mmRead(path, file)) return 0;
    const char* fault = file->rows != file->cols ? "needs a square matrix (a graph)" : file->rows == 0 ? "needs at least one vertex" : NULL;
    int* pairs = fault ? NULL : (int*)malloc(sizeof(int) * 2 * (size_t)(file->entries > 0 ? file->entries : 1));
    long long count = 0;
    for (int e = 0; pairs != NULL && e < file->entries; ++e) {
        const MmEntry t = file->entry[e];
        if (file->symmetry != MM_GENERAL && t.row < t.col) continue;  // its mirror (t.col, t.row) is taken
        pairs[2 * count] = t.row, pairs[2 * count + 1] = t.col, ++count;
    }
    mmFree(file);
    const int ok = pairs != NULL && buildCsr(file->rows, pairs, count, g);
    if (fault) fprintf(stderr, "%s: %s, got %d x %d\n", path, fault, file->rows, file->cols);
    else if (!ok) fprintf(stderr, "%s: out of host memory for the graph, or more than 2^31 adjacency entries\n", path);
    free(pairs);
    if (!ok) freeGraph(g);
    return ok;
}
// end snippet
// Graph500 Kronecker graph: each of edgeFactor * 2^scale edges picks a quadrant `scale` times, with probabilities A, B,
// C and D = 1 - A - B - C; the vertex numbers are then permuted (fixed seed), as Graph500 does. 0: out of host memory.
static int generateKronecker(int scale, Graph* g) {
    memset(g, 0, sizeof(*g));  // no labels: tables print v<number>
    const int vertexCount = 1 << scale; const long long pairCount = (long long)kKronEdgeFactor * vertexCount;
    int *pairs = (int*)malloc(sizeof(int) * 2 * (size_t)pairCount), *permutation = (int*)malloc(sizeof(int) * (size_t)vertexCount);
    const int ok = pairs != NULL && permutation != NULL;
    const double unit = 4294967296.0;  // thresholds on a 32-bit draw: one splitmix64 call gives two draws
    const uint32_t tA = (uint32_t)(kKronA * unit), tAB = (uint32_t)((kKronA + kKronB) * unit), tABC = (uint32_t)((kKronA + kKronB + kKronC) * unit);
    uint64_t state = kKronSeed;
    for (long long p = 0; ok && p < pairCount; ++p) {
        uint32_t u = 0, v = 0;
        for (int bit = 0; bit < scale; bit += 2) {
            const uint64_t draw = splitmix64(&state);
            for (int half = 0; half < 2 && bit + half < scale; ++half) {
                const uint32_t x = (uint32_t)(draw >> (32 * half));
                u = (u << 1) | (x >= tAB ? 1u : 0u);                            // down: C or D
                v = (v << 1) | ((x >= tA && x < tAB) || x >= tABC ? 1u : 0u);  // right: B or D
            }
        }
        pairs[2 * p] = (int)u, pairs[2 * p + 1] = (int)v;
    }
    for (int v = 0; ok && v < vertexCount; ++v) permutation[v] = v;
    for (int v = vertexCount - 1, k, t; ok && v > 0; --v)
        k = (int)(splitmix64(&state) % (uint64_t)(v + 1)), t = permutation[v], permutation[v] = permutation[k], permutation[k] = t;
    for (long long i = 0; ok && i < 2 * pairCount; ++i) pairs[i] = permutation[pairs[i]];
    const int built = ok && buildCsr(vertexCount, pairs, pairCount, g);  // 2^25 * 16 * 2 < 2^31: no overflow
    if (!built) fprintf(stderr, "Kronecker scale %d: out of host memory\n", scale), freeGraph(g);
    return free(pairs), free(permutation), built;
}

// ---- CPU reference: the judge ----

// Queue BFS, one level per pass. What level L finds lands after it in `order`, so levelStart[L] marks where level L
// begins: the GPU's frontiers, though the GPU orders a level as its atomics fall, so it is judged on distances and
// level sizes, not order. dist, order: vertexCount; levelStart: vertexCount + 1. Returns the levels.
// snippet: cpu-bfs
static int bfsCpu(const Graph* g, int source, int* dist, int* order, int* levelStart) {
    memset(dist, 0xff, sizeof(int) * (size_t)g->vertexCount);  // all -1: not reached
    dist[source] = 0, order[0] = source, levelStart[0] = 0;
    int found = 1, levels = 0;
    while (levelStart[levels] < found) {
        const int first = levelStart[levels], last = found;
        for (int k = first; k < last; ++k) {
            const int* neighbour = g->colIndices + g->rowOffsets[order[k]];
            const int* stop = g->colIndices + g->rowOffsets[order[k] + 1];
            for (; neighbour < stop; ++neighbour) {
                if (dist[*neighbour] == -1) dist[*neighbour] = levels + 1, order[found++] = *neighbour;
            }
        }
        levelStart[++levels] = last;
    }
    return levels;
}
// end snippet
// The CPU search from `source`, kept for the judge; Graph500 counts the component's undirected edges once each.
static void recordSearch(const Graph* g, int source, int* order, int* levelStart, Search* s) {
    s->source = source, s->dist = (int*)malloc(sizeof(int) * (size_t)g->vertexCount);
    s->levels = bfsCpu(g, source, s->dist, order, levelStart), s->reached = levelStart[s->levels];
    s->levelSize = (int*)malloc(sizeof(int) * (size_t)s->levels);
    for (int l = 0; l < s->levels; ++l) s->levelSize[l] = levelStart[l + 1] - levelStart[l];
    long long degreeSum = 0;
    for (int k = 0; k < s->reached; ++k) degreeSum += degreeOf(g, order[k]);
    s->componentEdges = degreeSum / 2;
}

// ---- Host analysis: degrees and the work of every level, counted from the graph ----

static void printDegreeStats(const Graph* g) {
    int *degrees = (int*)malloc(sizeof(int) * (size_t)g->vertexCount), hub = 0, degreeOne = 0, degreeZero = 0, heavy = 0;
    char name[24];
    for (int v = 0, d; v < g->vertexCount; ++v)
        d = degrees[v] = degreeOf(g, v), degreeOne += d == 1, degreeZero += d == 0, heavy += d >= kHeavyDegree, hub = d > degreeOf(g, hub) ? v : hub;
    qsort(degrees, (size_t)g->vertexCount, sizeof(int), compareInts);
    printf("  %d vertices, %lld undirected edges, %lld adjacency entries\n  degree: max %d (%s), median %d, mean %.2f; %d of degree 1, "
           "%d of degree 0, %d of degree >= %d\n", g->vertexCount, g->edgeCount, 2 * g->edgeCount, degreeOf(g, hub), nameOf(g, hub, name),
           degrees[g->vertexCount / 2], 2.0 * (double)g->edgeCount / g->vertexCount, degreeOne, degreeZero, heavy, kHeavyDegree);
    free(degrees);
}
// Per level, from the CPU's frontiers: edges, the widest vertex, and the lane slots each mapping issues (thread per
// vertex: a warp of 32 vertices runs as long as its widest; warp per vertex: ceil(degree / 32) steps). No clock.
static void printLevelWork(const Graph* g, const int* order, const int* levelStart, int levels) {
    printf("%6s %9s %9s %8s %6s %6s %12s %12s  %s\n", "level", "frontier", "edges", "max deg", "heavy", "warps", "thread slots", "warp slots", "busiest");
    long long totalEdges = 0, totalThreadSlots = 0, totalWarpSlots = 0; char name[24];
    for (int l = 0; l < levels; ++l) {
        const int begin = levelStart[l], end = levelStart[l + 1]; long long edges = 0, threadSlots = 0, warpSlots = 0;
        int maxDegree = -1, busiest = order[begin], warpMax = 0, heavy = 0;
        for (int k = begin; k < end; ++k) {
            const int d = degreeOf(g, order[k]), lane = (k - begin) & (kWarpSize - 1);
            edges += d, heavy += d >= kHeavyDegree, warpMax = d > warpMax ? d : warpMax;
            if (d > maxDegree) maxDegree = d, busiest = order[k];
            if (lane == kWarpSize - 1 || k + 1 == end) threadSlots += (long long)kWarpSize * warpMax, warpMax = 0;
            warpSlots += (long long)kWarpSize * blocksFor(d, kWarpSize);
        }
        totalEdges += edges, totalThreadSlots += threadSlots, totalWarpSlots += warpSlots;
        if (l < kMaxTableLevels) printf("%6d %9d %9lld %8d %6d %6d %12lld %12lld  %s\n", l, end - begin, edges, maxDegree, heavy,
                                        blocksFor(end - begin, kWarpSize), threadSlots, warpSlots, nameOf(g, busiest, name));
    }
    if (levels > kMaxTableLevels) printf("  (levels from %d on are not listed)\n", kMaxTableLevels);
    printf("  %lld edges walked; lane slots issued: %lld thread per vertex (%.1f%% busy), %lld warp per vertex (%.1f%% busy)\n", totalEdges,
           totalThreadSlots, 100.0 * totalEdges / (double)(totalThreadSlots > 0 ? totalThreadSlots : 1), totalWarpSlots,
           100.0 * totalEdges / (double)(totalWarpSlots > 0 ? totalWarpSlots : 1));
}
// The source rule: BFS from every vertex, keep those whose search needs the most levels, and of them take the
// first label in strcmp order: the most levels make the most launches and round trips, this lesson's case.
static int chooseWordSource(const Graph* g, int* order, int* levelStart, int* dist, int* mostLevels, int* tied) {
    int best = 0;
    for (int v = 0; v < g->vertexCount; ++v) {
        const int levels = bfsCpu(g, v, dist, order, levelStart);
        if (v == 0 || levels > *mostLevels) *mostLevels = levels, *tied = 1, best = v;
        else if (levels == *mostLevels && ++*tied && strcmp(labelOf(g, v), labelOf(g, best)) < 0) best = v;
    }
    return best;
}
// Graph500 roots: drawn with a fixed seed among the vertices of degree >= 1, no root twice; returns how many.
static int chooseRoots(const Graph* g, int wanted, int* roots) {
    long long candidates = 0;
    for (int v = 0; v < g->vertexCount; ++v) candidates += degreeOf(g, v) > 0;
    if (wanted > candidates) wanted = (int)candidates;
    uint64_t state = kRootSeed;
    for (int found = 0; found < wanted;) {
        int v = (int)(splitmix64(&state) % (uint64_t)g->vertexCount), fresh = degreeOf(g, v) > 0;
        for (int k = 0; k < found && fresh; ++k) fresh = roots[k] != v;
        if (fresh) roots[found++] = v;
    }
    return wanted;
}

// ---- Kernels ----

// Reads search state that other threads write in this very kernel (queue, counters, pieces): from L2 (__ldcg), where
// atomics and other SMs' stores land, so no stale L1 line answers.
template <typename T>
__device__ T loadState(const T* p) { return __ldcg(p); }
// The visited filter's read. A bit once set stays set, so a stale copy only says "not yet" of a taken vertex and the
// atomicOr then says no: it may come from L1 (__ldca), where 2^21 bits (256 KB) largely fit; dist (8 MB) would not.
__device__ unsigned int loadVisited(const BfsArrays& a, int v) { return __ldca(&a.visited[v / 32]); }
// Neighbour lists are read once a search: streamed (__ldcs, evict first), they do not push the bitmap out of L1.
__device__ int loadNeighbour(const BfsArrays& a, int e) { return __ldcs(&a.colIndices[e]); }
// How many pieces a heavy vertex is cut into; 0 for a light one, and for all when the mapping uses no pieces.
__device__ int piecesOf(const BfsArrays& a, int v) {
    if (a.heavyDegree == kNoHeavyDegree) return 0;
    const int degree = a.rowOffsets[v + 1] - a.rowOffsets[v];
    return degree >= a.heavyDegree ? (degree + kPieceEdges - 1) / kPieceEdges : 0;
}
// Writes v's pieces from slot `first` on; a slot past the capacity means a vertex was claimed twice (the judge says so).
__device__ void writePieces(const BfsArrays& a, int v, long long first, int count) {
    const int begin = a.rowOffsets[v], end = a.rowOffsets[v + 1];
    for (int p = 0; p < count && first + p < a.pieceCapacity; ++p) a.pieces[first + p] = make_int2(begin + p * kPieceEdges, min(begin + (p + 1) * kPieceEdges, end));
}
// Every search starts with -1 in dist, no visited bit but the source's, zero counters, and the source (with its pieces)
// as level 0: a kernel rather than memsets, so the host loop pays one launch and the device loops none.
__device__ void resetSearch(const BfsArrays& a, int source, long long thread, long long threads) {
    const int sourcePieces = piecesOf(a, source);
    for (long long v = thread; v < a.capacity; v += threads) a.dist[v] = (v == source) ? 0 : -1;
    for (long long i = thread; i < (a.capacity + 31) / 32; i += threads) a.visited[i] = i == source / 32 ? 1u << (source % 32) : 0u;
    for (long long i = thread; i < 2LL * (a.capacity + 1); i += threads) a.counts[i] = (i == 0) ? 1u : (i == 1 ? (unsigned int)sourcePieces : 0u);
    if (thread == 0) a.queue[0] = source, writePieces(a, source, 0, sourcePieces);
}
// Launch: any grid; gridDim.x * blockDim.x threads share the work.
__global__ void bfsReset(BfsArrays a, int source) {
    resetSearch(a, source, blockIdx.x * (long long)blockDim.x + threadIdx.x, (long long)gridDim.x * blockDim.x);
}
// `count` slots of a counter for each calling lane: the lanes of a warp that arrive together share one atomicAdd, and a
// scan of their counts (their ranks, when all are one) gives each its offset.
__device__ unsigned int appendSlots(unsigned int* counter, unsigned int count) {
    cg::coalesced_group arrived = cg::coalesced_threads();
    const unsigned int offset = arrived.all(count == 1u) ? arrived.thread_rank() : cg::exclusive_scan(arrived, count);
    const unsigned int last = arrived.size() - 1;
    unsigned int base = 0u;
    if (arrived.thread_rank() == last) base = atomicAdd(counter, offset + count);
    return arrived.shfl(base, last) + offset;
}
// A block's outbox: its claims wait in shared memory and reach the queue with one atomicAdd per block (flushOutbox),
// not one per warp on the level's single counter. A claim that finds the outbox full appends by itself.
typedef struct { int vertex[kOutboxSlots]; unsigned int count, flushed, base; } Outbox;
// A lane's claims from one walk (bit j of `won`: it took v[j]): the heavy ones' pieces with one reservation, the queue
// slots with one more, through the block's outbox while it has room. One per lane and walk, not one per claim.
template <int kCount>
__device__ void enqueueClaims(const BfsArrays& a, const LevelWindow& w, const int (&v)[kCount], unsigned int won, Outbox* outbox) {
    unsigned int total = 0u, spilled = 0u, room = outbox != NULL ? appendSlots(&outbox->count, __popc(won)) : kOutboxSlots;
#pragma unroll
    for (int j = 0; j < kCount; ++j) total += won >> j & 1u ? piecesOf(a, v[j]) : 0;
    if (total > 0) {  // rare: a heavy vertex claimed
        long long first = (long long)w.pieceStart + w.pieceSize + appendSlots(&a.counts[2 * w.level + 3], total);
        for (int j = 0, pieces; j < kCount; ++j) if ((pieces = won >> j & 1u ? piecesOf(a, v[j]) : 0) > 0) writePieces(a, v[j], first, pieces), first += pieces;
    }
#pragma unroll
    for (int j = 0; j < kCount; ++j)  // a full outbox (or none): straight to the queue
        if (won >> j & 1u) room < kOutboxSlots ? (void)(outbox->vertex[room++] = v[j]) : (void)(spilled |= 1u << j);
    if (spilled == 0u) return;
    long long slot = (long long)w.start + w.size + appendSlots(&a.counts[2 * (w.level + 1)], __popc(spilled));
    for (int j = 0; j < kCount; slot += spilled >> j & 1u, ++j)
        if (spilled >> j & 1u && slot < a.capacity) a.queue[slot] = v[j];  // beyond capacity only if a duplicate got in
}
// kCount edges per lane (edge[j] < 0: none), loads first: every neighbour, every visited word, then every claim, so a
// lane has kCount loads and atomics in flight. The filter read is cheap and most edges lead to a vertex already
// reached. The claim is an atomicOr: of all racers for v, exactly one gets its bit back clear (a plain store would let
// each append v: dist perfect, a frontier holding v twice). kUpTo stops after a step of the per-level table.
// snippet: claim
template <int kUpTo, int kCount>
__device__ void walkEdges(const BfsArrays& a, const LevelWindow& w, const int (&edge)[kCount], Outbox* outbox, unsigned long long* sink) {
    int v[kCount];
    unsigned int word[kCount], won = 0u;
#pragma unroll
    for (int j = 0; j < kCount; ++j) v[j] = edge[j] >= 0 && kUpTo > kUpToSplit ? loadNeighbour(a, edge[j]) : -1;
#pragma unroll
    for (int j = 0; j < kCount; ++j) word[j] = v[j] >= 0 && kUpTo > kUpToEdges ? loadVisited(a, v[j]) : 0u;
#pragma unroll
    for (int j = 0; j < kCount; ++j) {
        const bool fresh = v[j] >= 0 && !(word[j] >> (v[j] % 32) & 1u);
        if (kUpTo < kUpToClaim) *sink += kUpTo == kUpToSplit ? edge[j] + 1 : kUpTo == kUpToEdges ? v[j] + 1 : fresh;
        else word[j] = fresh ? atomicOr(&a.visited[v[j] / 32], 1u << (v[j] % 32)) : ~0u;
    }
#pragma unroll
    for (int j = 0; j < kCount; ++j) {  // the bit came back clear: v[j] is this lane's
        if (kUpTo >= kUpToClaim && v[j] >= 0 && !(word[j] >> (v[j] % 32) & 1u)) won |= 1u << j, a.dist[v[j]] = w.level + 1;
    }
    if (kUpTo == kUpToQueue && won != 0u) enqueueClaims(a, w, v, won, outbox);
}
// end snippet
// Mappings 1 and 2: kLanes lanes to a frontier vertex, striding its list together. kLanes = 1, thread per vertex, what
// most write first: whoever holds "the" walks a thousand entries with 31 lanes off. kLanes = 32, warp per vertex:
// neighbouring lanes on neighbouring entries, but a vertex of degree 1 occupies 32 lanes for one read.
// Launch: gridDim.x * blockDim.x >= kLanes * w.size; blockDim.x a multiple of 32.
// snippet: expand-by-vertex
template <int kLanes>
__global__ void expandByVertex(BfsArrays a, LevelWindow w) {
    const long long vertex = (blockIdx.x * (long long)blockDim.x + threadIdx.x) / kLanes;  // the same for its kLanes lanes
    if (vertex < w.size) {
        const int u = __ldcg(&a.queue[w.start + vertex]);
        const int end = a.rowOffsets[u + 1];
        for (int e = a.rowOffsets[u] + (int)(threadIdx.x % kLanes); e < end; e += kLanes) {
            const int edge[1] = {e};
            walkEdges<kUpToQueue>(a, w, edge, NULL, NULL);
        }
    }
}
// end snippet
// Exclusive block scan into scan[threadIdx.x], returning the total: warp shuffles, then one warp over the warp totals.
__device__ int blockExclusiveScan(int x, int* scan, int* warpTotals) {
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize, warps = blockDim.x / kWarpSize;
    int inclusive = x;
    for (int offset = 1, y; offset < kWarpSize; offset *= 2) y = __shfl_up_sync(0xffffffffu, inclusive, offset), inclusive += lane >= offset ? y : 0;
    if (lane == kWarpSize - 1) warpTotals[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        int total = lane < warps ? warpTotals[lane] : 0;
        for (int offset = 1, y; offset < kWarpSize; offset *= 2) y = __shfl_up_sync(0xffffffffu, total, offset), total += lane >= offset ? y : 0;
        if (lane < warps) warpTotals[lane] = total;
    }
    __syncthreads();
    scan[threadIdx.x] = inclusive - x + (warp > 0 ? warpTotals[warp - 1] : 0);
    return warpTotals[warps - 1];
}
// Every thread calls it: the outbox reaches the queue, one atomicAdd a block; its first barrier also ends the chunk.
__device__ void flushOutbox(const BfsArrays& a, const LevelWindow& w, Outbox* outbox) {
    __syncthreads();
    if (outbox == NULL) return;
    if (threadIdx.x == 0) {
        outbox->flushed = min(outbox->count, (unsigned int)kOutboxSlots), outbox->count = 0u;
        outbox->base = outbox->flushed > 0 ? atomicAdd(&a.counts[2 * (w.level + 1)], outbox->flushed) : 0u;
    }
    __syncthreads();
    for (unsigned int j = threadIdx.x; j < outbox->flushed; j += blockDim.x)
        if ((long long)w.start + w.size + outbox->base + j < a.capacity) a.queue[w.start + w.size + outbox->base + j] = outbox->vertex[j];
}
// Mapping 3, the one that adapts to degree. Heavy vertices were cut into pieces of kPieceEdges edges when claimed; every
// warp of the grid takes pieces in turn, so 400 warps walk a hub of 100,000 edges. Light ones: a block takes blockDim.x,
// scans their degrees and deals edge k to thread k % blockDim.x (a binary search finds its owner), kLightEdges at a
// time. Shared by the host loop's kernel and the grid loop (the block loop has its own level, loopLevel).
// snippet: expand-balanced
template <int kUpTo>
__device__ void expandBalanced(const BfsArrays& a, const LevelWindow& w, int* scan, int* owners, int* warpTotals, Outbox* outbox) {
    const long long thread = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long warps = (long long)gridDim.x * blockDim.x / kWarpSize;
    const int lane = threadIdx.x % kWarpSize;
    unsigned long long sink = 0;
    for (long long p = thread / kWarpSize; p < w.pieceSize; p += warps) {
        const int2 piece = __ldcg(&a.pieces[w.pieceStart + p]);  // pieces live in global memory
        int edge[kPieceEdges / kWarpSize];
#pragma unroll
        for (int j = 0; j < kPieceEdges / kWarpSize; ++j) edge[j] = piece.x + lane + j * kWarpSize < piece.y ? piece.x + lane + j * kWarpSize : -1;
        walkEdges<kUpTo>(a, w, edge, outbox, &sink);
    }
    flushOutbox(a, w, outbox);  // the pieces' claims, from blocks that get no chunk too
    for (long long chunk = (long long)blockIdx.x * blockDim.x; chunk < w.size; chunk += (long long)gridDim.x * blockDim.x) {
        const long long i = chunk + threadIdx.x;
        int degree = 0, begin = 0;
        if (i < w.size) {
            const int u = loadState(&a.queue[w.start + i]);
            begin = a.rowOffsets[u];
            degree = a.rowOffsets[u + 1] - begin;
            if (degree >= a.heavyDegree) degree = 0;  // its pieces are walked above
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
                int low = 0, high = vertices - 1;  // the last vertex whose first edge is <= k
                for (int mid = (low + high + 1) / 2; low < high; mid = (low + high + 1) / 2) scan[mid] <= k ? low = mid : high = mid - 1;
                edge[j] = k < edges ? owners[low] + (k - scan[low]) : -1;
            }
            walkEdges<kUpTo>(a, w, edge, outbox, &sink);
        }
        flushOutbox(a, w, outbox);  // its barrier: scan and owners are rewritten by the next chunk
    }
    if (kUpTo < kUpToClaim && sink == 1) *a.sink = sink;  // a store the compiler cannot drop keeps the loads
}
// end snippet
// Launch: blockDim.x = kThreadsPerBlock; gridDim.x * blockDim.x >= w.size; more blocks add warps for the pieces.
template <int kUpTo>
__global__ void __launch_bounds__(kThreadsPerBlock, kSearchBlocksPerSm) expandBalancedKernel(BfsArrays a, LevelWindow w) {
    __shared__ int scan[kThreadsPerBlock], owners[kThreadsPerBlock], warpTotals[kWarpSize];
    __shared__ Outbox outbox;
    if (threadIdx.x == 0) outbox.count = 0u;
    __syncthreads();
    expandBalanced<kUpTo>(a, w, scan, owners, warpTotals, &outbox);
}
// The device loops read a level's counters after the barrier that ends the level before: every append is done.
__device__ LevelWindow nextWindow(const BfsArrays& a, const LevelWindow& w) {
    LevelWindow next = {w.level + 1, w.start + w.size, 0, w.pieceStart + w.pieceSize, 0};
    const unsigned int size = loadState(&a.counts[2 * next.level]), pieces = loadState(&a.counts[2 * next.level + 1]);
    // A duplicate append could push a count past the end; read no further.
    const unsigned int room = (unsigned int)(a.capacity - next.start), pieceRoom = (unsigned int)(a.pieceCapacity - next.pieceStart);
    next.size = (int)(size < room ? size : room), next.pieceSize = (int)(pieces < pieceRoom ? pieces : pieceRoom);
    return next;
}
// The block loop's claim, its own: the compare-and-swap on dist, the filter read first (notes.md: the bitmap cost it).
// kCount windows of a warp's 32 edges (edge < 0: none), loads first; a ballot gives the winners their slots from `tail`
// on, with one atomicAdd a warp and window on the shared counter, or none for warp 0 alone (its count in a register).
template <bool kAlone, int kCount>
__device__ void claimWindows(const BfsArrays& a, int level, int tail, const int (&edge)[kCount], unsigned int* count) {
    const unsigned int lane = threadIdx.x % kWarpSize, below = (1u << lane) - 1u;
    int v[kCount];
    for (int j = 0; j < kCount; ++j) v[j] = edge[j] >= 0 ? a.colIndices[edge[j]] : -1;
    for (int j = 0; j < kCount; ++j) v[j] = v[j] >= 0 && *(volatile int*)&a.dist[v[j]] == -1 ? v[j] : -1;
    for (int j = 0; j < kCount; ++j) v[j] = v[j] >= 0 && atomicCAS(&a.dist[v[j]], -1, level + 1) == -1 ? v[j] : -1;  // -1: not won
    for (int j = 0; j < kCount; ++j) {
        const unsigned int mask = __ballot_sync(~0u, v[j] >= 0), leader = __ffs(mask) - 1;  // mask: the same in every lane
        const unsigned int base = kAlone ? *count : mask == 0u ? 0u : __shfl_sync(~0u, lane == leader ? atomicAdd(count, __popc(mask)) : 0u, leader);
        if (kAlone) *count += __popc(mask);
        if (v[j] >= 0 && tail + base + __popc(mask & below) < a.capacity) a.queue[tail + base + __popc(mask & below)] = v[j];
    }
}
// One level of the block loop: by warp 0 alone (kAlone: at most 32 vertices, __syncwarp for barriers) or by the block in
// chunks of blockDim.x vertices. Thread i holds vertex i's first edge (owners) and where its edges begin among its warp's
// (scan); after one barrier each warp scans the warp totals itself and walks its own run of the chunk's edges. A reached
// vertex has an edge (the one it came by), so first edges strictly increase: a window of 32 edges holds at most 32 starts
// after its first, one bit each in a warp's OR; a lane's owner is the first owner plus the starts up to it. -1: too big alone.
template <bool kAlone>
__device__ int loopLevel(const BfsArrays& a, int level, int start, int size, int* scratch) {
    int *scan = scratch, *owners = scratch + kLoopBlockThreads, *warpTotals = scratch + 2 * kLoopBlockThreads;
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize, warps = kAlone ? 1 : blockDim.x / kWarpSize;
    unsigned int count = 0u, *counter = kAlone ? &count : &a.counts[2 * (level + 1)];
    for (int chunk = 0; chunk < size; chunk += blockDim.x) {
        const int vertices = min(size - chunk, (int)blockDim.x), u = threadIdx.x < vertices ? a.queue[start + chunk + threadIdx.x] : 0;
        const int begin = threadIdx.x < vertices ? a.rowOffsets[u] : 0, degree = threadIdx.x < vertices ? a.rowOffsets[u + 1] - begin : 0;
        int inclusive = degree, offset;
        for (int d = 1, y; d < kWarpSize; d *= 2) y = __shfl_up_sync(~0u, inclusive, d), inclusive += lane >= d ? y : 0;
        scan[threadIdx.x] = inclusive - degree, owners[threadIdx.x] = begin;
        if (lane == kWarpSize - 1) warpTotals[warp] = inclusive;
        kAlone ? __syncwarp() : __syncthreads();
        offset = lane < warps ? warpTotals[lane] : 0;
        for (int d = 1, y; d < (kAlone ? 1 : kWarpSize); d *= 2) y = __shfl_up_sync(~0u, offset, d), offset += lane >= d ? y : 0;
        const int edges = __shfl_sync(~0u, offset, kAlone ? 0 : kWarpSize - 1), share = (edges + warps * kWarpSize - 1) / (warps * kWarpSize) * kWarpSize;
        const int from = warp * share, to = min(from + share, edges);
        if (kAlone && edges > kAloneEdges) return -1;  // the block takes this level
        offset -= lane < warps ? warpTotals[lane] : 0;  // lane w: where warp w's vertices' edges begin
        int low = 0, high = vertices - 1;  // the owner of edge `from`: the last vertex whose first edge is <= from
        for (int mid = (low + high + 1) / 2; from < to && low < high; mid = (low + high + 1) / 2)
            scan[mid] + __shfl_sync(~0u, offset, mid / kWarpSize) <= from ? low = mid : high = mid - 1;
        for (int f = from; f < to; f += kLoopWindows * kWarpSize) {
            int edge[kLoopWindows];
#pragma unroll
            for (int j = 0, w = f; j < kLoopWindows; ++j, w += kWarpSize) {  // a window: edges w to w + 31, owners from `low` on
                const int x = min(low + 1 + lane, vertices), xWarpFirst = __shfl_sync(~0u, offset, x / kWarpSize);  // every lane shuffles
                const int first = x < vertices ? scan[x] + xWarpFirst : edges;
                const unsigned int starts = __reduce_or_sync(~0u, first > w && first < w + kWarpSize ? 1u << (first - w) : 0u);
                const int owner = min(low + __popc(starts & ((2u << lane) - 1u)), vertices - 1), ownerWarpFirst = __shfl_sync(~0u, offset, owner / kWarpSize);
                edge[j] = w + lane < to ? owners[owner] + w + lane - scan[owner] - ownerWarpFirst : -1;
                low += __popc(starts) + (__ballot_sync(~0u, first == w + kWarpSize) != 0u);
            }
            claimWindows<kAlone>(a, level, start + size, edge, counter);
        }
        kAlone ? __syncwarp() : __syncthreads();  // scan, owners and warpTotals are rewritten next; the last ends the level
    }
    if (kAlone && lane == 0) a.counts[2 * (level + 1)] = count;
    return (int)(kAlone ? count : *(volatile unsigned int*)counter);
}
// The block loop's state in shared memory: dist, the queue, 2 (V + 1) counters, the visited bits; the graph too if asked.
__device__ BfsArrays moveOnChip(const BfsArrays& global, int* state, int graphOnChip) {
    BfsArrays a = global;
    a.dist = state, a.queue = state + a.capacity, a.counts = (unsigned int*)(state + 2 * a.capacity);
    a.visited = (unsigned int*)(state + 4 * a.capacity + 2), a.heavyDegree = kNoHeavyDegree;  // no pieces
    if (graphOnChip) {
        int* graph = state + 4 * a.capacity + 2 + (a.capacity + 31) / 32;
        for (int i = threadIdx.x; i <= a.capacity; i += blockDim.x) graph[i] = global.rowOffsets[i];
#pragma unroll 8
        for (int i = threadIdx.x; i < global.rowOffsets[a.capacity]; i += blockDim.x) graph[a.capacity + 1 + i] = global.colIndices[i];
        a.rowOffsets = graph, a.colIndices = graph + a.capacity + 1;
    }
    return a;
}
// Device loop 1: the whole search in one block, its state on chip (graphOnChip: the graph too, no read leaves the SM). A
// level ends at a barrier, not a launch and a copy; while frontiers are tiny, warp 0 runs levels alone. One SM does all
// the work: it wins only while levels are small, as the word graph's are. Launch: <<<1, kLoopBlockThreads, stateShared or graphShared>>>.
// snippet: block-loop
__global__ void __launch_bounds__(kLoopBlockThreads)
bfsBlockLoop(BfsArrays global, int source, int graphOnChip) {
    __shared__ int scratch[2 * kLoopBlockThreads + kWarpSize], handover[3];  // scan, owners, warp totals; warp 0's last level
    extern __shared__ int state[];
    const BfsArrays a = moveOnChip(global, state, graphOnChip);
    resetSearch(a, source, threadIdx.x, blockDim.x), __syncthreads();
    for (int level = 0, start = 0, size = 1, next; size > 0; start += size, ++level, size = min(next, a.capacity - start)) {
        if (size <= kWarpSize) {  // warp 0 alone while levels are tiny; the other warps wait at the barrier
            while (threadIdx.x < kWarpSize && size > 0 && size <= kWarpSize && (next = loopLevel<true>(a, level, start, size, scratch)) >= 0)
                start += size, ++level, size = min(next, a.capacity - start);
            if (threadIdx.x == 0) handover[0] = level, handover[1] = start, handover[2] = size;
            __syncthreads();
            level = handover[0], start = handover[1], size = handover[2];
            if (size == 0) break;
        }
        next = loopLevel<false>(a, level, start, size, scratch);  // ends at a barrier: the level's claims are done
    }
    for (int i = threadIdx.x; i < a.capacity; i += blockDim.x) global.dist[i] = a.dist[i], global.queue[i] = a.queue[i];
    for (int i = threadIdx.x; i < 2 * (a.capacity + 1); i += blockDim.x) global.counts[i] = a.counts[i];
}
// end snippet
// Device loop 2: the whole search in one cooperative grid, as many blocks as fit on the GPU at once, grid.sync() the
// level barrier: it scales to graphs one block cannot carry, and its barrier gathers every SM.
// Launch: cudaLaunchCooperativeKernel, blockDim.x = kThreadsPerBlock, gridDim.x <= co-resident blocks.
// snippet: grid-loop
__global__ void __launch_bounds__(kThreadsPerBlock, kSearchBlocksPerSm)
bfsGridLoop(BfsArrays a, int source) {
    __shared__ int scan[kThreadsPerBlock], owners[kThreadsPerBlock], warpTotals[kWarpSize];
    __shared__ Outbox outbox;
    cg::grid_group grid = cg::this_grid();
    resetSearch(a, source, grid.thread_rank(), grid.size());
    if (threadIdx.x == 0) outbox.count = 0u;
    grid.sync();
    LevelWindow w = {0, 0, 1, 0, (int)loadState(&a.counts[1])};  // level 0: the source, with its pieces
    while (w.size > 0) {
        expandBalanced<kUpToQueue>(a, w, scan, owners, warpTotals, &outbox);
        grid.sync();  // level barrier across every SM
        w = nextWindow(a, w);
    }
}
// end snippet

// ---- Timing helper and launchers ----

static BfsArrays arraysOf(const DeviceBfs* d, int heavyDegree) {
    const BfsArrays a = {d->rowOffsets, d->colIndices, d->dist, d->queue, d->visited, d->counts, d->pieces, d->sink,
                         d->vertexCount, d->pieceCapacity, heavyDegree};
    return a;
}
// One level of the host loop; the balanced mapping may stop after step `upTo` (the claim step on launchLevel's copies).
static void launchExpand(const DeviceBfs* d, int mapping, const LevelWindow* w, int upTo) {
    static void (*const balanced[kStepCount])(BfsArrays, LevelWindow) = {expandBalancedKernel<kUpToSplit>, expandBalancedKernel<kUpToEdges>,
        expandBalancedKernel<kUpToVisited>, expandBalancedKernel<kUpToClaim>, expandBalancedKernel<kUpToQueue>};
    BfsArrays a = arraysOf(d, mapping == kMapBalanced ? kHeavyDegree : kNoHeavyDegree);
    if (mapping == kMapThread) {
        expandByVertex<1><<<blocksFor(w->size, kThreadsPerBlock), kThreadsPerBlock>>>(a, *w);
    } else if (mapping == kMapWarp) {
        expandByVertex<kWarpSize><<<blocksFor((long long)w->size * kWarpSize, kThreadsPerBlock), kThreadsPerBlock>>>(a, *w);
    } else {
        // A chunk of vertices per block, and enough warps for the pieces: one each, or all the GPU holds at once.
        const int blocks = blocksFor(w->size, kThreadsPerBlock), pieceBlocks = blocksFor((long long)w->pieceSize * kWarpSize, kThreadsPerBlock);
        const int pieceGrid = pieceBlocks < d->residentBlocks ? pieceBlocks : d->residentBlocks;
        if (upTo == kUpToClaim) a.visited = d->scratchVisited, a.dist = d->scratchDist;
        balanced[upTo]<<<blocks > pieceGrid ? blocks : pieceGrid, kThreadsPerBlock>>>(a, *w);
    }
    CUDA_CHECK(cudaGetLastError());
}
// A level with its clock, if the table keeps it: events around the launch (balanced: around each step, in order).
static void launchLevel(const DeviceBfs* d, int mapping, const LevelWindow* w, cudaEvent_t (*clock)[2 * kMaxTableLevels]) {
    const int timed = clock != NULL && w->level < kMaxTableLevels;
    for (int step = timed && mapping == kMapBalanced ? kUpToSplit : kUpToQueue; step <= kUpToQueue; ++step) {
        if (step == kUpToClaim) {  // before the clock starts
            CUDA_CHECK(cudaMemcpyAsync(d->scratchVisited, d->visited, sizeof(unsigned int) * d->visitedWords, cudaMemcpyDeviceToDevice));
            CUDA_CHECK(cudaMemcpyAsync(d->scratchDist, d->dist, sizeof(int) * (size_t)d->vertexCount, cudaMemcpyDeviceToDevice));
        }
        if (timed) CUDA_CHECK(cudaEventRecord(clock[step][2 * w->level]));
        launchExpand(d, mapping, w, step);
        if (timed) CUDA_CHECK(cudaEventRecord(clock[step][2 * w->level + 1]));
    }
}
// The host loop: per level one launch, then one copy of the next level's two counters back to the host, without which
// it has no grid size and cannot tell that the search is over. That copy waits for the kernel: a synchronisation in
// the middle of the algorithm, and it is the algorithm. clock: see launchLevel. Returns the number of levels.
// snippet: host-loop
static int runHostLoop(const DeviceBfs* d, int mapping, int source, cudaEvent_t (*clock)[2 * kMaxTableLevels]) {
    const int heavyDegree = mapping == kMapBalanced ? kHeavyDegree : kNoHeavyDegree;
    bfsReset<<<blocksFor(d->vertexCount, kThreadsPerBlock), kThreadsPerBlock>>>(arraysOf(d, heavyDegree), source);
    CUDA_CHECK(cudaGetLastError());
    const int sourceDegree = d->hostRowOffsets[source + 1] - d->hostRowOffsets[source];
    LevelWindow w = {0, 0, 1, 0, sourceDegree >= heavyDegree ? (sourceDegree + kPieceEdges - 1) / kPieceEdges : 0};
    while (w.size > 0) {
        launchLevel(d, mapping, &w, clock);
        unsigned int next[2];  // the next level's vertices and pieces
        CUDA_CHECK(cudaMemcpy(next, &d->counts[2 * (w.level + 1)], sizeof(next), cudaMemcpyDeviceToHost));
        w.start += w.size, w.pieceStart += w.pieceSize, ++w.level;
        // A duplicate append could push a count past the end; read no further.
        const unsigned int room = (unsigned int)(d->vertexCount - w.start), pieceRoom = (unsigned int)(d->pieceCapacity - w.pieceStart);
        w.size = (int)(next[0] < room ? next[0] : room), w.pieceSize = (int)(next[1] < pieceRoom ? next[1] : pieceRoom);
    }
    return w.level;
}
// end snippet
// One whole search by any mapping; the device loops return -1 (the counters give their levels): one cooperative launch
// of every co-resident block, or one block with the state (on chip, the graph too) in dynamic shared memory.
static int runSearch(const DeviceBfs* d, int mapping, int source, cudaEvent_t (*clock)[2 * kMaxTableLevels]) {
    if (mapping < kMapBlockLoop) return runHostLoop(d, mapping, source, clock);
    BfsArrays a = arraysOf(d, mapping == kMapGridLoop ? kHeavyDegree : kNoHeavyDegree); void* args[] = {&a, &source};
    if (mapping == kMapGridLoop) CUDA_CHECK(cudaLaunchCooperativeKernel((void*)bfsGridLoop, dim3(d->gridLoopBlocks), dim3(kThreadsPerBlock), args, 0, 0));
    else bfsBlockLoop<<<1, kLoopBlockThreads, mapping == kMapOnChip ? d->graphShared : d->stateShared>>>(a, source, mapping == kMapOnChip);
    CUDA_CHECK(cudaGetLastError());
    return -1;
}
// Mean milliseconds of `runs` whole searches between two CUDA events, after `warmups` untimed ones.
static float timeMs(const DeviceBfs* d, int mapping, int source, int warmups, int runs) {
    for (int i = 0; i < warmups; ++i) runSearch(d, mapping, source, NULL);  // this launch's own module load and caches
    cudaEvent_t events[2];
    float total = 0.0f;  // milliseconds
    CUDA_CHECK(cudaDeviceSynchronize());
    for (int i = 0; i < 2; ++i) CUDA_CHECK(cudaEventCreate(&events[i]));
    CUDA_CHECK(cudaEventRecord(events[0]));
    for (int i = 0; i < runs; ++i) runSearch(d, mapping, source, NULL);
    CUDA_CHECK(cudaEventRecord(events[1]));
    CUDA_CHECK(cudaEventSynchronize(events[1]));
    CUDA_CHECK(cudaEventElapsedTime(&total, events[0], events[1]));
    for (int i = 0; i < 2; ++i) CUDA_CHECK(cudaEventDestroy(events[i]));
    return total / runs;
}

// ---- Device setup and the judge's comparison ----

static void uploadGraph(const Graph* g, DeviceBfs* d) {
    const size_t vertexBytes = sizeof(int) * (size_t)g->vertexCount;
    d->vertexCount = g->vertexCount, d->entryCount = g->rowOffsets[g->vertexCount], d->hostRowOffsets = g->rowOffsets;
    d->pieceCapacity = d->entryCount / kPieceEdges + d->vertexCount, d->visitedWords = (g->vertexCount + 31) / 32;
    void** arrays[] = {(void**)&d->rowOffsets, (void**)&d->colIndices, (void**)&d->dist, (void**)&d->scratchDist, (void**)&d->queue,
                       (void**)&d->visited, (void**)&d->scratchVisited, (void**)&d->pieces, (void**)&d->counts, (void**)&d->sink};
    const size_t bytes[] = {vertexBytes + sizeof(int), sizeof(int) * (size_t)(d->entryCount > 0 ? d->entryCount : 1), vertexBytes, vertexBytes,
                            vertexBytes, sizeof(int) * (size_t)d->visitedWords, sizeof(int) * (size_t)d->visitedWords,
                            sizeof(int2) * (size_t)d->pieceCapacity, 2 * vertexBytes + 2 * sizeof(int), sizeof(unsigned long long)};
    for (size_t i = 0; i < sizeof(bytes) / sizeof(bytes[0]); ++i) CUDA_CHECK(cudaMalloc(arrays[i], bytes[i]));
    CUDA_CHECK(cudaMemcpy(d->rowOffsets, g->rowOffsets, vertexBytes + sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->colIndices, g->colIndices, sizeof(int) * (size_t)d->entryCount, cudaMemcpyHostToDevice));
    int smCount = 0, gridLoopPerSm = 0, balancedPerSm = 0, sharedOptIn = 0;
    cudaFuncAttributes attributes;
    CUDA_CHECK(cudaDeviceGetAttribute(&smCount, cudaDevAttrMultiProcessorCount, 0));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&gridLoopPerSm, bfsGridLoop, kThreadsPerBlock, 0));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&balancedPerSm, expandBalancedKernel<kUpToQueue>, kThreadsPerBlock, 0));
    d->gridLoopBlocks = gridLoopPerSm * smCount;
    d->residentBlocks = balancedPerSm * smCount;
    CUDA_CHECK(cudaDeviceGetAttribute(&sharedOptIn, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, bfsBlockLoop));
    const size_t room = (size_t)sharedOptIn - attributes.sharedSizeBytes, state = sizeof(int) * (4 * (size_t)g->vertexCount + 2 + d->visitedWords);
    const size_t graph = state + sizeof(int) * ((size_t)g->vertexCount + 1 + (size_t)d->entryCount);  // moveOnChip's layout
    d->stateShared = state <= room ? state : 0, d->graphShared = graph <= room ? graph : 0;
    if (d->stateShared > 0) CUDA_CHECK(cudaFuncSetAttribute(bfsBlockLoop, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)(d->graphShared ? d->graphShared : d->stateShared)));
}
static void freeDevice(DeviceBfs* d) {
    void* held[] = {d->rowOffsets, d->colIndices, d->dist, d->scratchDist, d->queue, d->visited, d->scratchVisited, d->pieces, d->counts, d->sink};
    for (size_t i = 0; i < sizeof(held) / sizeof(held[0]); ++i) CUDA_CHECK(cudaFree(held[i]));
}
// One search judged against the CPU: every distance, the level count, every level's size (their sum catches a vertex
// appended twice, whose distance is right). dist and the counters are poisoned first. Prints only a fault; 0 or 1.
static int checkSearch(const DeviceBfs* d, int mapping, const Search* want, int* gotDist, unsigned int* gotCounts, const Graph* g) {
    const size_t countBytes = sizeof(unsigned int) * 2 * ((size_t)d->vertexCount + 1); const char* name = kMappingName[mapping];
    CUDA_CHECK(cudaMemset(d->dist, 0x7f, sizeof(int) * (size_t)d->vertexCount));
    CUDA_CHECK(cudaMemset(d->counts, 0x7f, countBytes));
    const int hostLevels = runSearch(d, mapping, want->source, NULL);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(gotDist, d->dist, sizeof(int) * (size_t)d->vertexCount, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(gotCounts, d->counts, countBytes, cudaMemcpyDeviceToHost)); char label[24];
    long long total = 0; int v = 0, levels = 0, l = 0;
    while (v < d->vertexCount && gotDist[v] == want->dist[v]) ++v;
    if (v < d->vertexCount)
        return printf("  %s, source %d: distance of vertex %d (%s) is %d, want %d\n", name, want->source, v, nameOf(g, v, label), gotDist[v], want->dist[v]), 1;
    while (levels <= d->vertexCount && gotCounts[2 * levels] != 0u) total += gotCounts[2 * levels++];
    if (hostLevels >= 0 && hostLevels != levels)
        return printf("  %s, source %d: the host loop ran %d levels, the counters hold %d\n", name, want->source, hostLevels, levels), 1;
    if (levels != want->levels) return printf("  %s, source %d: %d levels, want %d\n", name, want->source, levels, want->levels), 1;
    while (l < levels && gotCounts[2 * l] == (unsigned int)want->levelSize[l]) ++l;
    if (l < levels)
        return printf("  %s, source %d: level %d held %u vertices, want %d; frontiers held %lld in all, want %d (a duplicate append?)\n",
                      name, want->source, l, gotCounts[2 * l], want->levelSize[l], total, want->reached), 1;
    return 0;
}

// ---- The steps of main ----

// A graph and its searches: the source rule's one on the word graph, one per Graph500 root on the big graph.
typedef struct {
    const char* name;  // "Word graph", "Kronecker graph" or "Matrix Market graph"
    Graph g; int count;  // searches: the judge's answers, and the GPU's time of each whole search (0: the mapping did not run)
    Search search[kMaxRoots]; float ms[kMappingCount][kMaxRoots];
} Part;
// Step 1. Returns 0 to run, 1 after refusing a flag (one line on stderr), 2 after the help: the header's Run lines.
static int parseFlags(int argc, char** argv, Options* o) {
    static const char* const usage[] = {"  ./bfs                        word graph + Kronecker scale 21, 16 roots (the verified run)",
        "  ./bfs --kron 22 --roots 32   another Kronecker scale (6 to 25), another number of roots (1 to 64)",
        "  ./bfs --small                word graph + Kronecker scale 12, 4 roots, 1 timed run (for compute-sanitizer)",
        "  ./bfs FILE.mtx               a Matrix Market graph instead of the Kronecker one",
        "  ./bfs --words FILE           a graph in word-graph.txt's format instead of word-graph.txt",
        "  ./bfs --full                 the scaling run instead: Kronecker scales 18 to 23, 2 roots each (--roots N)",
        "  ./bfs --help                 this list (-h too)"};
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--help") != 0 && strcmp(argv[i], "-h") != 0) continue;
        for (size_t k = 0; k <= sizeof(usage) / sizeof(usage[0]); ++k) printf("%s\n", k == 0 ? "usage:" : usage[k - 1]);
        return 2;
    }
    const Options defaults = {-1, -1, 0, 0, NULL, kGraphPath};  // scale and roots wait for --small
    *o = defaults;
    for (int i = 1; i < argc; ++i) {
        const char *flag = argv[i], *value = i + 1 < argc && strncmp(argv[i + 1], "--", 2) != 0 ? argv[i + 1] : NULL;
        char* end = NULL; const long v = value ? strtol(value, &end, 10) : 0;
        const int kron = strcmp(flag, "--kron") == 0, counted = kron || strcmp(flag, "--roots") == 0;
        const int low = kron ? kMinScale : 1, high = kron ? kMaxScale : kMaxRoots;
        if (counted && value == NULL) return fprintf(stderr, "flag %s: needs a value, an integer from %d to %d\n", flag, low, high), 1;
        if (counted && (*end != '\0' || end == value || v < low || v > high))
            return fprintf(stderr, "flag %s: '%s' is not an integer from %d to %d\n", flag, value, low, high), 1;
        if (counted) *(kron ? &o->scale : &o->roots) = (int)v, ++i;
        else if (strcmp(flag, "--words") == 0 && value) o->wordsPath = argv[++i];
        else if (strcmp(flag, "--words") == 0) return fprintf(stderr, "flag --words: needs a FILE in word-graph.txt's format\n"), 1;
        else if (strcmp(flag, "--small") == 0) o->small = 1;
        else if (strcmp(flag, "--full") == 0) o->full = 1;
        else if (flag[0] == '-') return fprintf(stderr, "flag %s: unknown (--help lists every flag)\n", flag), 1;
        else if (o->matrixPath != NULL) return fprintf(stderr, "%s: a second graph file (give one Matrix Market file at most)\n", flag), 1;
        else o->matrixPath = flag;
    }
    if (o->matrixPath != NULL && o->scale >= 0) return fprintf(stderr, "flag --kron: a Matrix Market file was given too; choose one\n"), 1;
    if (o->full && (o->matrixPath != NULL || o->scale >= 0)) return fprintf(stderr, "flag --full: sweeps its own Kronecker scales; give no --kron or FILE.mtx\n"), 1;
    if (o->scale < 0) o->scale = o->small ? kSmallScale : kDefaultScale;
    if (o->roots < 0) o->roots = o->small ? kSmallRoots : o->full ? kSweepRoots : kDefaultRoots;
    return 0;
}
// Step 2: load and validate both graphs, or generate the big one.
static int loadGraphs(const Options* o, Part* words, Part* big, MmMatrix* file) {
    words->name = "Word graph", big->name = o->matrixPath ? "Matrix Market graph" : "Kronecker graph";
    if (!loadWordGraph(o->wordsPath, &words->g)) return 0;
    const int ok = o->matrixPath ? loadMatrixMarketGraph(o->matrixPath, &big->g, file) : generateKronecker(o->scale, &big->g);
    if (!ok) freeGraph(&words->g);
    return ok;
}
// Step 3: a graph on the host: degrees, sources (the rule, or Graph500 roots), the judge's answers, search 0's levels.
static void analyseGraph(const Options* o, Part* p, int words, const MmMatrix* file) {
    static const char* const field[] = {"real", "integer", "pattern"}, *const symmetry[] = {"general", "symmetric", "skew-symmetric"};
    const Graph* g = &p->g;
    if (words) printf("\nGraph: %s\n", o->wordsPath);
    else if (o->matrixPath) printf("\nGraph: %s (every entry an edge, values ignored; symmetrised, self-loops dropped)\n", o->matrixPath);
    else printf("\nGraph: Graph500 Kronecker, scale %d, edge factor %d, A B C = %.2f %.2f %.2f, seed %#llx (symmetrised, "
                "self-loops and duplicates dropped)\n", o->scale, kKronEdgeFactor, kKronA, kKronB, kKronC, (unsigned long long)kKronSeed);
    printDegreeStats(g);
    if (!words && o->matrixPath) printf("  read: %s %s, %d x %d, %lld entries declared, %lld duplicates merged (summed) by the reader\n",
                                        field[file->field], symmetry[file->symmetry], file->rows, file->cols, file->declared, file->merged);
    printf("  built from %lld pairs: %lld self-loops and %lld repeats of an edge dropped\n", g->pairCount, g->selfLoops, g->pairCount - g->selfLoops - g->edgeCount);
    int *order = (int*)malloc(sizeof(int) * (size_t)g->vertexCount), *levelStart = (int*)malloc(sizeof(int) * ((size_t)g->vertexCount + 1));
    int roots[kMaxRoots], mostLevels = 0, tied = 0;
    if (words) {
        int* dist = (int*)malloc(sizeof(int) * (size_t)g->vertexCount);
        roots[0] = chooseWordSource(g, order, levelStart, dist, &mostLevels, &tied), p->count = 1, free(dist);
        printf("  source: \"%s\" (vertex %d), first in alphabetical order among the %d words whose search needs the most levels (%d)\n",
               labelOf(g, roots[0]), roots[0], tied, mostLevels);
    } else {
        p->count = chooseRoots(g, o->roots, roots);
        printf("\n%d roots of degree >= 1 (seed %#llx); Graph500 counts the edges of each root's component%s\n%6s %10s %10s %12s %7s\n", p->count,
               (unsigned long long)kRootSeed, o->full || p->count < 2 ? "" : " (root 0 here)", "root", "vertex", "reached", "edges", "levels");
    }
    for (int r = p->count - 1; r >= 0; --r) recordSearch(g, roots[r], order, levelStart, &p->search[r]);  // search 0 last
    for (int r = 0; !words && r < (o->full ? p->count : p->count > 0); ++r)
        printf("%6d %10d %10d %12lld %7d\n", r, roots[r], p->search[r].reached, p->search[r].componentEdges, p->search[r].levels);
    if (words) printf("\nBFS from \"%s\": the work of each level, counted from the graph (heavy = degree >= %d)\n", labelOf(g, roots[0]), kHeavyDegree);
    else if (p->count > 0) printf("\nBFS from root 0 (vertex %d): the work of each level\n", roots[0]);
    if (p->count > 0) printLevelWork(g, order, levelStart, p->search[0].levels);  // search 0's frontiers: searched last
    if (words) printf("  reached %d of %d vertices in %d levels: a host loop makes %d launches and %d round trips\n", p->search[0].reached,
                      g->vertexCount, p->search[0].levels, p->search[0].levels + 1, p->search[0].levels);
    free(order), free(levelStart);
}
// Step 4: the first CUDA call: 0 (the no-device line) or 1; *cooperative: the grid loop can run (else the run fails).
static int deviceFound(int* cooperative) {
    int deviceCount = 0, driver = 0, runtime = 0; const cudaError_t probe = cudaGetDeviceCount(&deviceCount);
    if (probe != cudaSuccess || deviceCount == 0)
        return printf("no CUDA device found (%s): the host part above ran, the GPU part did not\n", probe != cudaSuccess ? cudaGetErrorString(probe) : "0 devices"), 0;
    cudaDeviceProp prop; CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    CUDA_CHECK(cudaDeviceGetAttribute(cooperative, cudaDevAttrCooperativeLaunch, 0));
    printf("\n~ GPU: {%s}, compute capability %d.%d, %d SMs, {driver %d.%d, runtime %d.%d}\n", prop.name, prop.major, prop.minor,
           prop.multiProcessorCount, driver / 1000, (driver % 1000) / 10, runtime / 1000, (runtime % 1000) / 10);
    if (!*cooperative) printf("this device cannot launch cooperative kernels: the grid loop needs cudaDevAttrCooperativeLaunch\n");
    return 1;
}
// Judges every mapping in `mask` from every search; ok[m]: ran and passed. A block loop that does not fit the word graph fails.
static int checkMappings(const DeviceBfs* d, const Part* p, int cooperative, int words, unsigned int mask, int* ok) {
    int* gotDist = (int*)malloc(sizeof(int) * (size_t)p->g.vertexCount), failures = 0;
    unsigned int* gotCounts = (unsigned int*)malloc(sizeof(unsigned int) * 2 * ((size_t)p->g.vertexCount + 1)); long long reached = 0;
    for (int r = 0; r < p->count; ++r) reached += p->search[r].reached;
    printf("\n%s: correctness (distances, level count, every level's size against the CPU) from %d searches\n", p->name, p->count);
    for (int m = 0, bad = 0; m < kMappingCount; ++m, bad = 0) {
        const int fits = (m != kMapBlockLoop || d->stateShared > 0) && (m != kMapOnChip || d->graphShared > 0);
        ok[m] = (mask >> m & 1u) && fits && (m != kMapGridLoop || cooperative);
        if (!fits && (mask >> m & 1u)) printf("  %-20s not run: the %s of %d vertices does not fit one block's shared memory\n", kMappingName[m],
                                               m == kMapOnChip ? "graph and state" : "state", p->g.vertexCount);
        failures += !fits && words;
        for (int r = 0; ok[m] && r < p->count; ++r) bad += checkSearch(d, m, &p->search[r], gotDist, gotCounts, &p->g);
        if (bad > 0) ok[m] = 0, failures += bad;
        else if (ok[m]) printf("  %-20s every distance and level size right; the frontiers held %lld vertices, no duplicates\n", kMappingName[m], reached);
    }
    return free(gotDist), free(gotCounts), failures;
}
// Search 0's levels by each host loop, mean microseconds of `runs` (the device loops have no host-visible level); for
// the balanced kernel each step too, from the split alone (scan, owner search, no read) through the edge reads, the
// visited filter and the claims to the whole: the differences are where its time goes, the last the queue and pieces.
// Timing runs are not judged again: the same searches just were. Tag L, the word graph: then where a host-loop level's time goes.
static void printLevelTimes(const DeviceBfs* d, const int* ok, const Part* p, int runs, char tag) {
    const Search* s = &p->search[0];
    const int levels = s->levels < kMaxTableLevels ? s->levels : kMaxTableLevels, column[kMapBalanced + 1] = {0, 1, 2 + kUpToQueue};
    double us[2 + kStepCount][kMaxTableLevels] = {{0}}, total[2 + kStepCount] = {0}, meanUs[kMapBalanced + 1] = {0};  // us: thread, warp, steps
    static cudaEvent_t clock[kStepCount][2 * kMaxTableLevels];
    long long edges[kMaxTableLevels] = {0};
    for (int v = 0; v < p->g.vertexCount; ++v) if (s->dist[v] >= 0 && s->dist[v] < levels) edges[s->dist[v]] += degreeOf(&p->g, v);
    for (int i = 0; i < kStepCount * 2 * kMaxTableLevels; ++i) CUDA_CHECK(cudaEventCreate(&clock[0][0] + i));
    for (int m = kMapThread; m <= kMapBalanced; ++m) {
        for (int run = 0; ok[m] && run < runs; ++run) {
            runSearch(d, m, s->source, clock); CUDA_CHECK(cudaDeviceSynchronize());
            for (int i = 0; i < levels * kStepCount; ++i) {  // level i / kStepCount, step i % kStepCount
                const int l = i / kStepCount, step = i % kStepCount; float ms = 0.0f;
                if (m == kMapBalanced || step == kUpToQueue) CUDA_CHECK(cudaEventElapsedTime(&ms, clock[step][2 * l], clock[step][2 * l + 1]));
                us[m == kMapBalanced ? 2 + step : m][l] += 1000.0 * ms / runs;
            }
        }
    }
    for (int i = 0; i < kStepCount * 2 * kMaxTableLevels; ++i) CUDA_CHECK(cudaEventDestroy((&clock[0][0])[i]));
    printf("\n%s: each level's kernel (%c1: level 1), us, host loops; the balanced kernel step by step\n%6s %9s %9s %9s %9s",
           tag == 'L' ? "Word graph" : "Root 0", tag, "level", "frontier", "edges", "thread", "warp");
    for (int step = 0; step < kStepCount; ++step) printf(" %9s", kStepName[step]);
    printf("  fastest\n");
    for (int l = 0, fastest = -1; l < levels; ++l, fastest = -1) {
        printf("~ %c%-3d %9d %9lld", tag, l, s->levelSize[l], edges[l]);
        for (int c = 0; c < 2 + kStepCount; ++c) {
            if (ok[c < 2 ? c : kMapBalanced]) printf(" %9.2f", us[c][l]); else printf(" %9s", "-");
            total[c] += us[c][l];
        }
        for (int m = kMapThread; m <= kMapBalanced; ++m) {
            meanUs[m] += us[column[m]][l] / levels;
            if (ok[m] && (fastest < 0 || us[column[m]][l] < us[column[fastest]][l])) fastest = m;
        }
        printf("  {%s}\n", fastest >= 0 ? kMappingName[fastest] : "none");
    }
    if (ok[kMapBalanced] && tag == 'R')  // the word graph's levels are launch-paced: their steps differ by noise
        printf("~ balanced, the search's %d levels: %.1f us = %.1f split + %.1f edge reads + %.1f visited filter + %.1f claims + %.1f queue and pieces\n",
               levels, total[2 + kUpToQueue], total[2], total[3] - total[2], total[4] - total[3], total[5] - total[4], total[6] - total[5]);
    if (tag == 'L') printf("Where a host-loop level's time goes (whole-search time per level minus the kernel's own time):\n");
    for (int m = kMapThread; tag == 'L' && m <= kMapBalanced; ++m) if (ok[m])
        printf("~ %s: %.2f us per level = %.2f us in the kernel + %.2f us of launch, copy and wait\n", kMappingName[m], 1000.0 * p->ms[m][0] / s->levels,
               meanUs[m], 1000.0 * p->ms[m][0] / s->levels - meanUs[m]);
}
// Step 5: a graph on the GPU: every mapping of `mask` judged, then each whole search timed (reset, launches and round
// trips included: the algorithm needs them), by the Graph500 rule on the big graph; then search 0 level by level (not
// when sweeping), and on the word graph a host-loop level's launch, copy and wait. hm: each mapping's GTEPS.
static int runOnGpu(const Options* o, Part* p, int cooperative, int words, unsigned int mask, double* hm) {
    int runs = o->small ? kSmallTimedRuns : words ? kTimedRuns : kKronTimedRuns, levels = p->search[0].levels, ok[kMappingCount];
    DeviceBfs d;
    char label[64];
    uploadGraph(&p->g, &d);
    int failures = checkMappings(&d, p, cooperative, words, mask, ok);
    if (words) printf("\nWord graph: whole BFS from \"%s\", %d levels, mean of %d runs; reset included, and for the host loops %d launches "
                      "and %d device-to-host copies\n%-22s %12s %14s %12s\n", labelOf(&p->g, p->search[0].source), levels, runs, levels + 1,
                      levels, "mapping", "us per bfs", "us per level", "vs host warp");
    else printf("\nWhole BFS per root, mean of %d runs after warm-up (thread per vertex: 1); GTEPS = component edges / time, harmonic "
                "mean over roots\n%-29s %12s %12s %12s %12s\n", runs, "graph, mapping", "mean ms", "GTEPS (hm)", "min GTEPS", "max GTEPS");
    for (int i = 0; i < kMappingCount * p->count; ++i) {  // mapping i / count from root i % count
        const int m = i / p->count, r = i % p->count, warmups = r > 0 || o->small ? 1 : kWarmupRuns;
        // Thread per vertex's Kronecker searches are the longest of the lesson by far: one run each is steady.
        if (ok[m]) p->ms[m][r] = timeMs(&d, m, p->search[r].source, warmups, !words && m == kMapThread ? 1 : runs);
        if (ok[m] && !(p->ms[m][r] > 0.0f)) ++failures, printf("  %s: a whole-search time is not positive\n", kMappingName[m]);
    }
    for (int m = 0; m < kMappingCount; ++m) {
        double sumMs = 0.0, inverse = 0.0, low = 0.0, high = 0.0;
        for (int r = 0; r < p->count; ++r) {
            const double gteps = (double)p->search[r].componentEdges / (p->ms[m][r] * 1e-3) * 1e-9; sumMs += p->ms[m][r], inverse += 1.0 / gteps;
            low = r == 0 || gteps < low ? gteps : low, high = r == 0 || gteps > high ? gteps : high;
        }
        if (!ok[m] || p->count == 0) continue;
        hm[m] = p->count / inverse;
        if (o->matrixPath) snprintf(label, sizeof(label), "mtx %s", kMappingName[m]); else snprintf(label, sizeof(label), "kron%d %s", o->scale, kMappingName[m]);
        if (words) printf("~ %-20s %12.2f %14.2f %11.2fx\n", kMappingName[m], 1000.0 * sumMs, 1000.0 * sumMs / levels, ok[kMapWarp] ? p->ms[kMapWarp][0] / sumMs : 0.0);
        else printf("~ %-27s %12.3f %12.2f %12.2f %12.2f\n", label, sumMs / p->count, hm[m], low, high);
    }
    if (!words && !o->full) printf("plotspec: gteps | bar | Graph500 GTEPS by mapping (harmonic mean over roots) | mapping | GTEPS\n");
    for (int m = 0; !words && !o->full && m < kMappingCount; ++m) if (ok[m] && p->count > 0) printf("~ plot: gteps | %s | %s | %.3f\n", kMappingName[m], kMappingName[m], hm[m]);
    if (p->count > 0 && !o->full) printLevelTimes(&d, ok, p, runs, words ? 'L' : 'R');
    freeDevice(&d);
    return failures;
}
// Step 6: the goals, and the headlines the course README reads.
static void printGoals(const Options* o, const Part* words, const double* hm) {
    float warpMs = words->ms[kMapWarp][0], deviceMs = 0.0f;  // deviceMs: the fastest device loop
    for (int m = kMapBlockLoop; m < kMappingCount; ++m) deviceMs = words->ms[m][0] > 0.0f && (deviceMs == 0.0f || words->ms[m][0] < deviceMs) ? words->ms[m][0] : deviceMs;
    const double speedup = deviceMs > 0.0f && warpMs > 0.0f ? warpMs / deviceMs : 0.0; int best = 0;
    for (int m = 1; m < kMappingCount; ++m) best = hm[m] > hm[best] ? m : best;
    printf("\n~ word graph: host-loop warp %.2f us, best device loop %.2f us: %.2fx (goal >= 10x: {%s})\n", 1000.0 * warpMs, 1000.0 * deviceMs,
           speedup, speedup >= 10.0 ? "met" : "not met");
    if (o->matrixPath) printf("~ Matrix Market graph: best mapping {%s} at %.2f GTEPS\n", kMappingName[best], hm[best]);
    else printf("~ Kronecker scale %d: best mapping {%s} at %.2f GTEPS (goal >= 40 at scale 21, top-down: {%s})\n", o->scale, kMappingName[best],
                hm[best], hm[best] >= 40.0 ? "met" : "not met");
    printf("headline: device_loop_speedup_wordgraph = %.2f\n", speedup);
    if (o->matrixPath) printf("headline: mtx_gteps_best = %.2f\n", hm[best]); else printf("headline: kron%d_gteps_best = %.2f\n", o->scale, hm[best]);
}
static void freePart(Part* p) {
    for (int r = 0; r < p->count; ++r) free(p->search[r].dist), free(p->search[r].levelSize);
    freeGraph(&p->g), p->count = 0;
}
// --full, in place of steps 2 to 6: each Kronecker scale kSweepFirst..kSweepLast through steps 3 and 5 with the balanced
// host loop and the grid loop; one row and plot point each. Without a GPU it stops after the first host part.
static int runSweep(Options* o) {
    static Part big; int cooperative = 0, failures = 0, device = -1;
    double hm[kSweepLast + 1][kMappingCount] = {{0}}; long long edges[kSweepLast + 1] = {0};
    printf("Day 38, scaling run: Kronecker scales %d to %d, %d roots each; the balanced host loop and the grid loop\n", kSweepFirst, kSweepLast, o->roots);
    for (int s = kSweepFirst; s <= kSweepLast; ++s) {
        o->scale = s, big.name = "Kronecker graph";
        if (!generateKronecker(s, &big.g)) return EXIT_FAILURE;
        analyseGraph(o, &big, 0, NULL);
        if (device < 0) device = deviceFound(&cooperative);
        if (!device) return freePart(&big), 2;
        failures += !cooperative + runOnGpu(o, &big, cooperative, 0, 1u << kMapBalanced | 1u << kMapGridLoop, hm[s]); edges[s] = big.g.edgeCount;
        freePart(&big);
    }
    printf("\nScaling: Graph500 GTEPS (harmonic mean over the roots) against the graph\n%-14s %14s %12s %12s\n", "sweep, graph", "edges", "host loop", "device loop");
    for (int s = kSweepFirst; s <= kSweepLast; ++s) printf("~ sweep kron%-3d %14lld %12.2f %12.2f\n", s, edges[s], hm[s][kMapBalanced], hm[s][kMapGridLoop]);
    printf("plotspec: scaling | logx | Graph500 GTEPS against graph size, Kronecker scales %d to %d | undirected edges | GTEPS\n", kSweepFirst, kSweepLast);
    for (int i = 0, m; i < 2 * (kSweepLast - kSweepFirst + 1); ++i)  // host loop, device loop, scale by scale
        m = i % 2 ? kMapGridLoop : kMapBalanced, printf("~ plot: scaling | %s | %lld | %.3f\n", kMappingName[m], edges[kSweepFirst + i / 2], hm[kSweepFirst + i / 2][m]);
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

int main(int argc, char** argv) {
    static Part words, big;  // static: a Part holds its searches and times inline
    Options o; MmMatrix file;  // the Matrix Market reader's counts, for the host part
    const int flags = parseFlags(argc, argv, &o);                       // 1. flags (--help: exit 0)
    if (flags != 0) return flags == 2 ? EXIT_SUCCESS : EXIT_FAILURE;
    if (o.full) return runSweep(&o);                                    // --full: the scaling run instead
    if (!loadGraphs(&o, &words, &big, &file)) return EXIT_FAILURE;      // 2. load and validate, generate
    printf("Day 38: level-synchronous BFS, thread / warp / edge-balanced mappings, host loop vs device loop\n");
    analyseGraph(&o, &words, 1, &file);                                 // 3. host analysis: the judge's answers
    analyseGraph(&o, &big, 0, &file);
    int status = 2, cooperative = 0;
    double hmWords[kMappingCount] = {0}, hm[kMappingCount] = {0};
    if (deviceFound(&cooperative)) {                                    // 4. the first CUDA call
        int failures = !cooperative + runOnGpu(&o, &words, cooperative, 1, ~0u, hmWords);  // 5. GPU part: judge, then time
        failures += runOnGpu(&o, &big, cooperative, 0, ~0u, hm);
        printGoals(&o, &words, hm);                                     // 6. goals and headlines
        printf("%s\n", failures == 0 ? "PASS" : "FAIL"); status = failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
    }
    freePart(&words), freePart(&big);
    return status;
}
