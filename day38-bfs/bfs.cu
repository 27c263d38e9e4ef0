// Day 38: breadth-first search, one level at a time, on the CUDA word graph.
//
// What it measures. A level-synchronous BFS expands the whole frontier of
// level L before it starts level L + 1. The lesson asks two questions of it:
//   1. How should a frontier be laid onto threads? Thread per vertex, warp
//      per vertex, and an edge-balanced mapping that shares each block's edges
//      evenly among its threads (a vertex gets as many lanes as it has edges).
//   2. Where does the time of a small search go? A host loop pays a launch and
//      a device-to-host copy of the next frontier's size for every level. Two
//      device loops keep the level loop on the GPU: one block that runs the
//      whole search (levels end at __syncthreads), and a cooperative grid that
//      runs it with grid.sync() as the level barrier.
//
// Why this data. word-graph.txt holds the words of the CUDA Toolkit headers'
// documentation comments; an edge joins two words found side by side in at
// least three places. Its degrees are wildly uneven: "the" touches
// about a third of the graph while the median word has a handful of
// neighbours, which is exactly what separates the mappings. It is small, so it
// also shows what a level costs when there is almost no work in it. For scale
// the program builds a Graph500 Kronecker graph (scale 21 by default: 2 million
// vertices, about 64 million adjacency entries) and reports GTEPS by the
// Graph500 rule.
//
// Build: nvcc -O3 -arch=sm_90 -o bfs bfs.cu
// Run:   ./bfs                      word graph + Kronecker scale 21, 16 roots
//        ./bfs --kron 22 --roots 32 a larger Kronecker graph, more roots
//        ./bfs --small              word graph + Kronecker scale 12 (for compute-sanitizer)
//        ./bfs graph.mtx            any Matrix Market graph instead of the Kronecker one
//        ./bfs --words FILE         a graph in word-graph.txt's format instead of word-graph.txt
// Run it from this folder: it opens word-graph.txt by a relative path.
// Transcript: the newest evidence/run-*.txt beside this file.

#include <errno.h>  // errno, for the reason a file would not open
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cooperative_groups.h>
#include <cuda_runtime.h>

namespace cg = cooperative_groups;

// ---------------------------------------------------------------------------
// Constants, each with its reason
// ---------------------------------------------------------------------------

static const char* const kGraphPath = "word-graph.txt";  // beside this file
static const int kWarpSize = 32;             // every GPU this course targets
static const int kThreadsPerBlock = 256;     // 8 warps: whole warps, and 8 blocks fit an SM
static const int kLoopBlockThreads = 1024;   // the single-block loop takes the largest block there is
static const int kMaxLabelLength = 63;       // the word-graph tool drops longer words
static const int kLineCapacity = 256;        // a data line is two numbers or one word
static const int kWarmupRuns = 3;            // lazy loading: each kernel's first launch pays its load
static const int kTimedRuns = 20;            // word-graph searches are ~0.1 ms; 20 steady the mean
static const int kKronTimedRuns = 5;         // per root; 16 roots make 80 timed searches per mapping
static const int kSmallTimedRuns = 1;        // --small feeds the sanitizer, ~100x slower: one run covers every path
static const int kWalkRepeats = 64;          // lifts one level's walk well above a launch
static const int kWalkMinEdges = 1000;       // a smaller level finishes inside the launch itself
static const int kMaxTableLevels = 64;       // per-level timing tables stop here (Kronecker needs ~8)
// A vertex with a block's worth of edges or more is "heavy": the edge-balanced
// mapping cuts its list into pieces of kPieceEdges entries, one warp per
// piece (8 coalesced steps), spread over the whole grid. A Kronecker level
// can hold a few thousand vertices with ten million edges between them; dealt
// out by vertex, a few blocks would do all of it while the rest of the GPU idles.
static const int kHeavyDegree = 256;
static const int kPieceEdges = 256;
static const int kNoHeavyDegree = INT_MAX;   // "no vertex is heavy": mappings without pieces

// Graph500 Kronecker generator (Graph500 specification, section 3).
static const double kKronA = 0.57, kKronB = 0.19, kKronC = 0.19;  // D = 0.05
static const int kKronEdgeFactor = 16;          // generated edges per vertex
static const int kDefaultScale = 21;            // 2^21 vertices: the verified run
static const int kSmallScale = 12;              // --small: 4096 vertices, seconds under the sanitizer
static const int kMinScale = 6;                 // below this few roots have degree >= 1
static const int kMaxScale = 25;                // 2^25 * 16 * 2 entries still fit an int offset
static const uint64_t kKronSeed = 0x5eed0038ULL;   // fixed: the same graph on every run
static const uint64_t kRootSeed = 0x0007ab1eULL;   // fixed: the same roots on every run
static const int kDefaultRoots = 16;            // Graph500 asks for 64; 16 keep the run under a minute
static const int kSmallRoots = 4;               // --small: enough roots to vary the search, few enough for racecheck
static const int kMaxRoots = 64;

static_assert(kThreadsPerBlock % kWarpSize == 0, "a block must be whole warps");
static_assert(kLoopBlockThreads % kWarpSize == 0, "a block must be whole warps");
static_assert(kLoopBlockThreads <= 1024, "the block scan keeps one total per warp, 32 at most");

// ---------------------------------------------------------------------------
// Error macro: a byte-identical copy of common/cuda-check.h
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

// ---------------------------------------------------------------------------
// Data structures
// ---------------------------------------------------------------------------

// An undirected graph in CSR: v's neighbours are colIndices[rowOffsets[v]]
// up to colIndices[rowOffsets[v + 1] - 1], each edge stored once per direction,
// rows sorted, no self-loops, no duplicates. labels is NULL for a generated
// graph; otherwise vertexCount strings of kMaxLabelLength + 1 chars.
typedef struct {
    int vertexCount;
    long long edgeCount;  // undirected edges
    int* rowOffsets;      // vertexCount + 1
    int* colIndices;      // 2 * edgeCount
    char* labels;
} Graph;

// One CPU search, kept for the judge: exact distances and each level's size.
typedef struct {
    int source;
    int levels;                // non-empty frontiers, level 0 included
    int reached;
    long long componentEdges;  // Graph500: undirected edges inside the component
    int* dist;                 // vertexCount, -1 where not reached
    int* levelSize;            // levels entries
} Search;

// Every device array one search touches. The frontier of every level lives
// in one queue, level after level, like the CPU's visiting order; counts
// holds two counters per level: [2L] vertices in level L, [2L + 1] pieces of
// heavy vertices in level L, which sit in `pieces`, level after level, as
// edge ranges [begin, end).
typedef struct {
    int vertexCount;
    int entryCount;
    int pieceCapacity;
    int* rowOffsets;
    int* colIndices;
    int* dist;
    int* queue;
    int2* pieces;
    unsigned int* counts;             // 2 * (vertexCount + 1)
    unsigned long long* levelClock;   // vertexCount + 1 stamps of the device loops
    unsigned int* walkOut;            // vertexCount, the isolated walk's checksums
    const int* hostRowOffsets;        // the host's copy, to size grids without a round trip
    int gridLoopBlocks;               // co-resident blocks of the cooperative kernel
    int residentBlocks;               // co-resident blocks of the edge-balanced kernel
    size_t blockLoopShared;           // dynamic shared bytes of the block loop; 0: does not fit
} DeviceBfs;

// What a kernel needs to expand one level, passed by value.
typedef struct {
    const int* rowOffsets;
    const int* colIndices;
    int* dist;
    int* queue;
    int2* pieces;
    unsigned int* counts;
    int capacity;       // vertexCount: no queue holds more distinct vertices
    int pieceCapacity;  // entries / kPieceEdges + vertexCount: every heavy list cut up
    int heavyDegree;    // kHeavyDegree or kNoHeavyDegree
} BfsArrays;

// Where level `level` sits in the queue and in the piece list.
typedef struct {
    int level;
    int start;       // its first slot in queue
    int size;        // its vertices
    int pieceStart;  // its first piece
    int pieceSize;   // its pieces
} LevelWindow;

enum { kMapThread, kMapWarp, kMapBalanced, kMapBlockLoop, kMapGridLoop, kMappingCount };
static const char* const kMappingName[kMappingCount] = {
    "host loop, thread", "host loop, warp", "host loop, balanced",
    "device loop, block", "device loop, grid"};

// ---------------------------------------------------------------------------
// Small host helpers
// ---------------------------------------------------------------------------

// splitmix64: a fixed-seed generator written out here, so the Kronecker graph
// and the roots are the same on every machine and every run.
static uint64_t splitmix64(uint64_t* state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static int degreeOf(const Graph* g, int v) { return g->rowOffsets[v + 1] - g->rowOffsets[v]; }

// The name a table prints for a vertex: its word, or its number.
static const char* nameOf(const Graph* g, int v, char* buffer) {
    if (g->labels != NULL) return g->labels + (size_t)v * (kMaxLabelLength + 1);
    snprintf(buffer, 24, "v%d", v);
    return buffer;
}

static void freeGraph(Graph* g) {
    free(g->rowOffsets);
    free(g->colIndices);
    free(g->labels);
    memset(g, 0, sizeof(*g));
}

static int compareInts(const void* a, const void* b) {
    const int x = *(const int*)a, y = *(const int*)b;
    return (x > y) - (x < y);
}

// ---------------------------------------------------------------------------
// CSR from a list of undirected pairs
// ---------------------------------------------------------------------------

// Symmetrises, drops self-loops and duplicates, and sorts every row. Two
// counting sorts do it in linear time: first every directed entry (a -> b) is
// bucketed by b, then the buckets are read in order of b and scattered into
// row a, so each row comes out sorted and a duplicate sits next to its twin.
// Returns 0 when the pair count would overflow an int offset.
static int buildCsr(int vertexCount, const int* from, const int* to, long long pairs, Graph* g) {
    long long entries = 0;
    for (long long p = 0; p < pairs; ++p) entries += (from[p] != to[p]) ? 2 : 0;
    if (entries > INT_MAX) return 0;

    int* byTarget = (int*)malloc(sizeof(int) * (size_t)(entries > 0 ? entries : 1));
    int* targetOffsets = (int*)calloc((size_t)vertexCount + 1, sizeof(int));
    int* cursor = (int*)malloc(sizeof(int) * ((size_t)vertexCount + 1));
    g->rowOffsets = (int*)calloc((size_t)vertexCount + 1, sizeof(int));
    g->colIndices = (int*)malloc(sizeof(int) * (size_t)(entries > 0 ? entries : 1));
    g->vertexCount = vertexCount;

    for (long long p = 0; p < pairs; ++p) {
        if (from[p] == to[p]) continue;
        ++targetOffsets[to[p] + 1];
        ++targetOffsets[from[p] + 1];
        ++g->rowOffsets[from[p] + 1];
        ++g->rowOffsets[to[p] + 1];
    }
    for (int v = 0; v < vertexCount; ++v) {
        targetOffsets[v + 1] += targetOffsets[v];
        g->rowOffsets[v + 1] += g->rowOffsets[v];
    }
    memcpy(cursor, targetOffsets, sizeof(int) * (size_t)vertexCount);
    for (long long p = 0; p < pairs; ++p) {
        if (from[p] == to[p]) continue;
        byTarget[cursor[to[p]]++] = from[p];
        byTarget[cursor[from[p]]++] = to[p];
    }
    memcpy(cursor, g->rowOffsets, sizeof(int) * (size_t)vertexCount);
    for (int target = 0; target < vertexCount; ++target) {
        for (int k = targetOffsets[target]; k < targetOffsets[target + 1]; ++k) {
            g->colIndices[cursor[byTarget[k]]++] = target;
        }
    }
    // Drop the duplicates in place, row by row.
    int write = 0;
    for (int v = 0; v < vertexCount; ++v) {
        const int begin = g->rowOffsets[v], end = g->rowOffsets[v + 1];
        g->rowOffsets[v] = write;
        for (int k = begin; k < end; ++k) {
            if (k == begin || g->colIndices[k] != g->colIndices[k - 1]) {
                g->colIndices[write++] = g->colIndices[k];
            }
        }
    }
    g->rowOffsets[vertexCount] = write;
    g->edgeCount = write / 2;
    free(byTarget);
    free(targetOffsets);
    free(cursor);
    return 1;
}

// ---------------------------------------------------------------------------
// Loaders. Each refuses bad input with one line, `FILE: line N: what`, and
// frees what it allocated, before anything touches CUDA.
// ---------------------------------------------------------------------------

typedef struct {
    FILE* file;
    const char* path;
    int lineNumber;
    char line[kLineCapacity];
} LineReader;

// Reads the next line into r->line without its newline. Returns 1 on a line,
// 0 at end of file, -1 when the line does not fit (an error is printed).
static int readLine(LineReader* r) {
    if (fgets(r->line, kLineCapacity, r->file) == NULL) return 0;
    ++r->lineNumber;
    size_t length = strlen(r->line);
    if (length > 0 && r->line[length - 1] == '\n') {
        r->line[--length] = '\0';
    } else if (!feof(r->file)) {
        fprintf(stderr, "%s: line %d: longer than %d characters\n", r->path, r->lineNumber,
                kLineCapacity - 2);
        return -1;
    }
    if (length > 0 && r->line[length - 1] == '\r') r->line[--length] = '\0';
    return 1;
}

// Opens a file for line reading; prints the reason and returns 0 when it
// cannot. Both loaders start here so their messages name files alike.
static int openLineReader(LineReader* r, const char* path) {
    r->file = fopen(path, "r");
    r->path = path;
    r->lineNumber = 0;
    if (r->file == NULL) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return 0;
    }
    return 1;
}

// The two endpoint arrays a loader fills before buildCsr. At least one slot
// each, so that an empty edge list is not mistaken for a failed malloc.
static int allocEndpoints(const LineReader* r, long long count, const char* what, int** from, int** to) {
    const size_t slots = (size_t)(count > 0 ? count : 1);
    *from = (int*)malloc(sizeof(int) * slots);
    *to = (int*)malloc(sizeof(int) * slots);
    if (*from != NULL && *to != NULL) return 1;
    fprintf(stderr, "%s: line %d: no memory for %lld %s\n", r->path, r->lineNumber, count, what);
    return 0;
}

// Every loader leaves through here: the file closed, the endpoint arrays
// freed, and on failure the half-built graph freed, so a refused input leaves
// nothing allocated.
static int finishLoad(LineReader* r, int* from, int* to, int ok, Graph* g) {
    fclose(r->file);
    free(from);
    free(to);
    if (!ok) freeGraph(g);
    return ok;
}

// Splits a line into at most `cap` whitespace-separated tokens, in place.
static int splitTokens(char* line, char** tokens, int cap) {
    int count = 0;
    char* p = line;
    while (*p != '\0') {
        while (*p == ' ' || *p == '\t') ++p;
        if (*p == '\0') break;
        if (count == cap) return cap + 1;
        tokens[count++] = p;
        while (*p != '\0' && *p != ' ' && *p != '\t') ++p;
        if (*p != '\0') *p++ = '\0';
    }
    return count;
}

// Parses a decimal integer token. Returns 1 and sets *value when it is one
// and lies in [0, limit]; otherwise prints why and returns 0. `what` names the
// field in the message.
static int parseCount(const LineReader* r, const char* token, long long limit, const char* what,
                      long long* value) {
    const char* p = token;
    int negative = 0;
    if (*p == '-' || *p == '+') negative = (*p++ == '-');
    if (*p == '\0') {
        fprintf(stderr, "%s: line %d: %s `%s` is not a number\n", r->path, r->lineNumber, what, token);
        return 0;
    }
    long long v = 0;
    int overflow = 0;
    for (; *p != '\0'; ++p) {
        if (*p < '0' || *p > '9') {
            fprintf(stderr, "%s: line %d: %s `%s` is not a number\n", r->path, r->lineNumber, what,
                    token);
            return 0;
        }
        if (v > (LLONG_MAX - 9) / 10) overflow = 1; else v = v * 10 + (*p - '0');
    }
    if (negative && (v != 0 || overflow)) {
        fprintf(stderr, "%s: line %d: %s %s is negative\n", r->path, r->lineNumber, what, token);
        return 0;
    }
    if (overflow || v > limit) {
        fprintf(stderr, "%s: line %d: %s %s is out of range 0..%lld\n", r->path, r->lineNumber, what,
                token, limit);
        return 0;
    }
    *value = v;
    return 1;
}

// word-graph.txt: `#` provenance lines, a line `V E`, V labels (one word a
// line, vertex 0 first), E lines `u v` with 0 <= u < v < V, sorted by u then
// v, so no pair appears twice. Nothing may follow the last edge.
// snippet: loader
static int loadWordGraph(const char* path, Graph* g) {
    memset(g, 0, sizeof(*g));
    LineReader r;
    if (!openLineReader(&r, path)) return 0;
    int* from = NULL;
    int* to = NULL;
    char* tokens[3];
    int ok = 0, status;

    // Header: the first line that is not a # line.
    while ((status = readLine(&r)) == 1 && r.line[0] == '#') {}
    if (status == 0) fprintf(stderr, "%s: line %d: no `V E` header\n", path, r.lineNumber + 1);
    if (status != 1) goto done;
    long long vertexCount, edgeCount;
    if (splitTokens(r.line, tokens, 2) != 2) {
        fprintf(stderr, "%s: line %d: header must be two counts, `V E`\n", path, r.lineNumber);
        goto done;
    }
    // Limits: V labels must fit memory; 2E adjacency entries must fit an int.
    if (!parseCount(&r, tokens[0], INT_MAX / 2, "vertex count", &vertexCount)) goto done;
    if (!parseCount(&r, tokens[1], INT_MAX / 2, "edge count", &edgeCount)) goto done;
    if (vertexCount == 0) {
        fprintf(stderr, "%s: line %d: vertex count must be at least 1\n", path, r.lineNumber);
        goto done;
    }

    g->vertexCount = (int)vertexCount;
    g->labels = (char*)calloc((size_t)vertexCount, kMaxLabelLength + 1);
    if (g->labels == NULL) {
        fprintf(stderr, "%s: line %d: no memory for %lld labels\n", path, r.lineNumber, vertexCount);
        goto done;
    }
    for (int v = 0; v < g->vertexCount; ++v) {
        if ((status = readLine(&r)) != 1) {
            if (status == 0) {
                fprintf(stderr, "%s: line %d: file ends after %d of %d labels\n", path,
                        r.lineNumber + 1, v, g->vertexCount);
            }
            goto done;
        }
        const size_t length = strlen(r.line);
        if (length == 0) {
            fprintf(stderr, "%s: line %d: label of vertex %d is empty\n", path, r.lineNumber, v);
            goto done;
        }
        if (length > (size_t)kMaxLabelLength) {
            fprintf(stderr, "%s: line %d: label of vertex %d is longer than %d characters\n", path,
                    r.lineNumber, v, kMaxLabelLength);
            goto done;
        }
        if (strcspn(r.line, " \t") != length) {
            fprintf(stderr, "%s: line %d: label of vertex %d holds a space\n", path, r.lineNumber, v);
            goto done;
        }
        memcpy(g->labels + (size_t)v * (kMaxLabelLength + 1), r.line, length);
    }

    if (!allocEndpoints(&r, edgeCount, "edges", &from, &to)) goto done;
    for (long long e = 0; e < edgeCount; ++e) {
        if ((status = readLine(&r)) != 1) {
            if (status == 0) {
                fprintf(stderr, "%s: line %d: file ends after %lld of %lld edges\n", path,
                        r.lineNumber + 1, e, edgeCount);
            }
            goto done;
        }
        if (splitTokens(r.line, tokens, 2) != 2) {
            fprintf(stderr, "%s: line %d: edge %lld must be two vertices, `u v`\n", path,
                    r.lineNumber, e);
            goto done;
        }
        long long u, v;
        if (!parseCount(&r, tokens[0], vertexCount - 1, "vertex", &u)) goto done;
        if (!parseCount(&r, tokens[1], vertexCount - 1, "vertex", &v)) goto done;
        if (u == v) {
            fprintf(stderr, "%s: line %d: edge %lld is a self-loop on vertex %lld\n", path,
                    r.lineNumber, e, u);
            goto done;
        }
        if (u > v) {
            fprintf(stderr, "%s: line %d: edge %lld lists %lld before %lld; the file puts the smaller first\n",
                    path, r.lineNumber, e, u, v);
            goto done;
        }
        if (e > 0 && (u < from[e - 1] || (u == from[e - 1] && v <= to[e - 1]))) {
            fprintf(stderr, "%s: line %d: edge %lld repeats or comes before the edge above it\n",
                    path, r.lineNumber, e);
            goto done;
        }
        from[e] = (int)u;
        to[e] = (int)v;
    }
    while ((status = readLine(&r)) == 1) {
        if (r.line[strspn(r.line, " \t")] != '\0') {
            fprintf(stderr, "%s: line %d: more data than the header's %lld edges\n", path,
                    r.lineNumber, edgeCount);
            goto done;
        }
    }
    if (status != 0) goto done;
    ok = buildCsr(g->vertexCount, from, to, edgeCount, g);
done:
    return finishLoad(&r, from, to, ok, g);
}
// end snippet

// A Matrix Market graph: `coordinate`, any of pattern / integer / real,
// general or symmetric, square. Values are ignored; every entry (i, j) is an
// undirected edge, so the graph is symmetrised, and self-loops and duplicates
// are dropped, which is what BFS on an undirected graph means.
static int loadMatrixMarket(const char* path, Graph* g) {
    memset(g, 0, sizeof(*g));
    LineReader r;
    if (!openLineReader(&r, path)) return 0;
    int* from = NULL;
    int* to = NULL;
    char* tokens[6];
    int ok = 0, status, count;
    long long rows, cols, entries;

    if ((status = readLine(&r)) != 1) {
        if (status == 0) fprintf(stderr, "%s: line 1: empty file\n", path);
        goto done;
    }
    count = splitTokens(r.line, tokens, 5);
    if (count != 5 || strcmp(tokens[0], "%%MatrixMarket") != 0 || strcmp(tokens[1], "matrix") != 0 ||
        strcmp(tokens[2], "coordinate") != 0 ||
        (strcmp(tokens[3], "pattern") != 0 && strcmp(tokens[3], "integer") != 0 &&
         strcmp(tokens[3], "real") != 0) ||
        (strcmp(tokens[4], "general") != 0 && strcmp(tokens[4], "symmetric") != 0)) {
        fprintf(stderr,
                "%s: line 1: want `%%%%MatrixMarket matrix coordinate pattern|integer|real general|symmetric`\n",
                path);
        goto done;
    }
    {
        const int valueTokens = strcmp(tokens[3], "pattern") == 0 ? 0 : 1;
        while ((status = readLine(&r)) == 1 && (r.line[0] == '%' || r.line[0] == '\0')) {}
        if (status == 0) fprintf(stderr, "%s: line %d: no size line\n", path, r.lineNumber + 1);
        if (status != 1) goto done;
        if (splitTokens(r.line, tokens, 3) != 3) {
            fprintf(stderr, "%s: line %d: size line must be `rows cols entries`\n", path, r.lineNumber);
            goto done;
        }
        if (!parseCount(&r, tokens[0], INT_MAX / 2, "row count", &rows)) goto done;
        if (!parseCount(&r, tokens[1], INT_MAX / 2, "column count", &cols)) goto done;
        if (!parseCount(&r, tokens[2], INT_MAX / 2, "entry count", &entries)) goto done;
        if (rows != cols || rows == 0) {
            fprintf(stderr, "%s: line %d: a graph needs a square matrix with at least one row\n", path,
                    r.lineNumber);
            goto done;
        }
        if (!allocEndpoints(&r, entries, "entries", &from, &to)) goto done;
        for (long long e = 0; e < entries; ++e) {
            while ((status = readLine(&r)) == 1 && r.line[0] == '%') {}
            if (status != 1) {
                if (status == 0) {
                    fprintf(stderr, "%s: line %d: file ends after %lld of %lld entries\n", path,
                            r.lineNumber + 1, e, entries);
                }
                goto done;
            }
            if (splitTokens(r.line, tokens, 3) != 2 + valueTokens) {
                fprintf(stderr, "%s: line %d: entry %lld must be `i j%s`\n", path, r.lineNumber, e,
                        valueTokens ? " value" : "");
                goto done;
            }
            long long i, j;
            if (!parseCount(&r, tokens[0], rows, "row", &i)) goto done;
            if (!parseCount(&r, tokens[1], rows, "column", &j)) goto done;
            if (i == 0 || j == 0) {
                fprintf(stderr, "%s: line %d: Matrix Market indices start at 1\n", path, r.lineNumber);
                goto done;
            }
            from[e] = (int)(i - 1);
            to[e] = (int)(j - 1);
        }
        if (!buildCsr((int)rows, from, to, entries, g)) {
            fprintf(stderr, "%s: line %d: %lld entries overflow an int offset\n", path, r.lineNumber,
                    entries);
            goto done;
        }
        ok = 1;
    }
done:
    return finishLoad(&r, from, to, ok, g);
}

// Graph500 Kronecker graph: each of edgeFactor * 2^scale edges picks one of
// the four quadrants of the adjacency matrix `scale` times, with
// probabilities A, B, C and D = 1 - A - B - C. The vertex numbers are then
// permuted with a fixed seed, as the Graph500 reference does, so the hubs are
// not all at small numbers.
static void generateKronecker(int scale, Graph* g) {
    memset(g, 0, sizeof(*g));  // no labels: tables print v<number>
    const int vertexCount = 1 << scale;
    const long long pairs = (long long)kKronEdgeFactor * vertexCount;
    int* from = (int*)malloc(sizeof(int) * (size_t)pairs);
    int* to = (int*)malloc(sizeof(int) * (size_t)pairs);
    int* permutation = (int*)malloc(sizeof(int) * (size_t)vertexCount);
    // Thresholds on a 32-bit draw: one splitmix64 call gives two draws.
    const double unit = 4294967296.0;
    const uint32_t tA = (uint32_t)(kKronA * unit), tAB = (uint32_t)((kKronA + kKronB) * unit),
                   tABC = (uint32_t)((kKronA + kKronB + kKronC) * unit);
    uint64_t state = kKronSeed;
    for (long long p = 0; p < pairs; ++p) {
        uint32_t u = 0, v = 0;
        for (int bit = 0; bit < scale; bit += 2) {
            const uint64_t draw = splitmix64(&state);
            for (int half = 0; half < 2 && bit + half < scale; ++half) {
                const uint32_t x = (uint32_t)(draw >> (32 * half));
                const uint32_t down = (x >= tAB) ? 1u : 0u;                      // C or D
                const uint32_t right = (x >= tA && x < tAB) || x >= tABC ? 1u : 0u;  // B or D
                u = (u << 1) | down;
                v = (v << 1) | right;
            }
        }
        from[p] = (int)u;
        to[p] = (int)v;
    }
    for (int v = 0; v < vertexCount; ++v) permutation[v] = v;
    for (int v = vertexCount - 1; v > 0; --v) {
        const int k = (int)(splitmix64(&state) % (uint64_t)(v + 1));
        const int t = permutation[v];
        permutation[v] = permutation[k];
        permutation[k] = t;
    }
    for (long long p = 0; p < pairs; ++p) {
        from[p] = permutation[from[p]];
        to[p] = permutation[to[p]];
    }
    buildCsr(vertexCount, from, to, pairs, g);  // 2^25 * 16 * 2 < 2^31: cannot overflow
    free(from);
    free(to);
    free(permutation);
}

// ---------------------------------------------------------------------------
// CPU reference: the judge
// ---------------------------------------------------------------------------

// Queue BFS, one level per pass of the outer loop. Everything found while
// level L is read lands after it in `order`, so order is sorted by distance
// and levelStart[L] marks where level L begins: the same frontiers the GPU
// builds, though the GPU orders the vertices inside a level as its atomics
// fall, which is why it is judged on distances and level sizes, not order.
// dist, order: vertexCount entries; levelStart: vertexCount + 1. Returns the
// number of levels.
// snippet: cpu-bfs
static int bfsCpu(const Graph* g, int source, int* dist, int* order, int* levelStart) {
    memset(dist, 0xff, sizeof(int) * (size_t)g->vertexCount);  // all -1: not reached
    dist[source] = 0;
    order[0] = source;
    int found = 1, levels = 0;
    levelStart[0] = 0;
    while (levelStart[levels] < found) {
        const int first = levelStart[levels], last = found;
        for (int k = first; k < last; ++k) {
            const int* neighbour = g->colIndices + g->rowOffsets[order[k]];
            const int* stop = g->colIndices + g->rowOffsets[order[k] + 1];
            for (; neighbour < stop; ++neighbour) {
                if (dist[*neighbour] == -1) {
                    dist[*neighbour] = levels + 1;
                    order[found++] = *neighbour;
                }
            }
        }
        levelStart[++levels] = last;
    }
    return levels;
}
// end snippet

// Runs the CPU search from `source` and keeps what the judge needs.
static void recordSearch(const Graph* g, int source, int* order, int* levelStart, Search* s) {
    s->source = source;
    s->dist = (int*)malloc(sizeof(int) * (size_t)g->vertexCount);
    s->levels = bfsCpu(g, source, s->dist, order, levelStart);
    s->reached = levelStart[s->levels];
    s->levelSize = (int*)malloc(sizeof(int) * (size_t)s->levels);
    for (int l = 0; l < s->levels; ++l) s->levelSize[l] = levelStart[l + 1] - levelStart[l];
    // Graph500 counts the undirected edges of the traversed component once
    // each: every edge with an end in it has both ends in it.
    long long degreeSum = 0;
    for (int k = 0; k < s->reached; ++k) degreeSum += degreeOf(g, order[k]);
    s->componentEdges = degreeSum / 2;
}

static void freeSearch(Search* s) {
    free(s->dist);
    free(s->levelSize);
    s->dist = NULL;
    s->levelSize = NULL;
}

// The isolated walk's answer for one vertex, predicted on the host. It is an
// unsigned sum, and unsigned overflow is defined modular arithmetic in C and
// in CUDA alike, so prediction and result must be equal, not close.
static unsigned int walkChecksum(const Graph* g, int vertex, int repeats) {
    unsigned int sum = 0u;
    for (int r = 0; r < repeats; ++r) {
        for (int e = g->rowOffsets[vertex]; e < g->rowOffsets[vertex + 1]; ++e) {
            sum += (unsigned int)g->colIndices[e] ^ (unsigned int)r;
        }
    }
    return sum;
}

// ---------------------------------------------------------------------------
// Host analysis: degrees and the work of every level, counted from the graph
// ---------------------------------------------------------------------------

static void printDegreeStats(const Graph* g, const char* title) {
    int* degrees = (int*)malloc(sizeof(int) * (size_t)g->vertexCount);
    int hub = 0, hubDegree = -1, degreeOne = 0, degreeZero = 0, heavy = 0;
    for (int v = 0; v < g->vertexCount; ++v) {
        degrees[v] = degreeOf(g, v);
        degreeOne += degrees[v] == 1;
        degreeZero += degrees[v] == 0;
        heavy += degrees[v] >= kHeavyDegree;
        if (degrees[v] > hubDegree) {
            hub = v;
            hubDegree = degrees[v];
        }
    }
    char name[24];
    qsort(degrees, (size_t)g->vertexCount, sizeof(int), compareInts);
    printf("\n%s\n", title);
    printf("  %d vertices, %lld undirected edges, %lld adjacency entries\n", g->vertexCount,
           g->edgeCount, 2 * g->edgeCount);
    printf("  degree: max %d (%s), median %d, mean %.2f; %d of degree 1, %d of degree 0, %d of degree >= %d\n",
           hubDegree, nameOf(g, hub, name), degrees[g->vertexCount / 2],
           2.0 * (double)g->edgeCount / g->vertexCount, degreeOne, degreeZero, heavy, kHeavyDegree);
    free(degrees);
}

// Per level, from the CPU's frontiers: the edges to walk, the widest vertex,
// and the lane slots each mapping issues. Thread per vertex: a warp of 32
// frontier vertices runs as long as its widest one, 32 slots a step. Warp
// per vertex: ceil(degree / 32) steps of 32 slots per vertex. Neither number
// comes from a clock.
static void printLevelWork(const Graph* g, const int* order, const int* levelStart, int levels) {
    printf("%6s %9s %9s %8s %6s %6s %12s %12s  %s\n", "level", "frontier", "edges", "max deg", "heavy",
           "warps", "thread slots", "warp slots", "busiest");
    long long totalEdges = 0, totalThreadSlots = 0, totalWarpSlots = 0;
    char name[24];
    for (int l = 0; l < levels; ++l) {
        const int begin = levelStart[l], end = levelStart[l + 1];
        long long edges = 0, threadSlots = 0, warpSlots = 0;
        int maxDegree = -1, busiest = order[begin], warpMax = 0, heavy = 0;
        for (int k = begin; k < end; ++k) {
            const int d = degreeOf(g, order[k]);
            edges += d;
            heavy += d >= kHeavyDegree;
            if (d > maxDegree) {
                maxDegree = d;
                busiest = order[k];
            }
            if (d > warpMax) warpMax = d;
            // A warp of thread-per-vertex lanes closes after its 32nd vertex
            // or at the level's last one; it costs 32 lanes per step of its widest.
            const int lane = (k - begin) & (kWarpSize - 1);
            const int warpCloses = lane == kWarpSize - 1 || k + 1 == end;
            if (warpCloses) {
                threadSlots += (long long)kWarpSize * warpMax;
                warpMax = 0;
            }
            warpSlots += (long long)kWarpSize * ((d + kWarpSize - 1) / kWarpSize);
        }
        totalEdges += edges;
        totalThreadSlots += threadSlots;
        totalWarpSlots += warpSlots;
        if (l < kMaxTableLevels) {
            printf("%6d %9d %9lld %8d %6d %6d %12lld %12lld  %s\n", l, end - begin, edges, maxDegree, heavy,
                   (end - begin + kWarpSize - 1) / kWarpSize, threadSlots, warpSlots, nameOf(g, busiest, name));
        }
    }
    if (levels > kMaxTableLevels) printf("  (levels from %d on are not listed)\n", kMaxTableLevels);
    printf("  %lld edges walked; lane slots issued: %lld thread per vertex (%.1f%% busy), %lld warp per vertex (%.1f%% busy)\n",
           totalEdges, totalThreadSlots, 100.0 * totalEdges / (double)(totalThreadSlots > 0 ? totalThreadSlots : 1),
           totalWarpSlots, 100.0 * totalEdges / (double)(totalWarpSlots > 0 ? totalWarpSlots : 1));
}

// The source rule: BFS from every vertex, keep those whose search needs the
// most levels, and of them take the first label in strcmp order. The deepest
// search is the one with the most levels, so the most launches and round
// trips: the case this lesson is about.
static int chooseWordSource(const Graph* g, int* order, int* levelStart, int* dist, int* mostLevels,
                            int* tied) {
    int best = -1;
    *mostLevels = 0;
    *tied = 0;
    for (int v = 0; v < g->vertexCount; ++v) {
        const int levels = bfsCpu(g, v, dist, order, levelStart);
        if (levels > *mostLevels) {
            *mostLevels = levels;
            *tied = 1;
            best = v;
        } else if (levels == *mostLevels) {
            ++*tied;
            if (strcmp(g->labels + (size_t)v * (kMaxLabelLength + 1),
                       g->labels + (size_t)best * (kMaxLabelLength + 1)) < 0) {
                best = v;
            }
        }
    }
    return best;
}

// Graph500 roots: drawn with a fixed seed among the vertices of degree >= 1,
// no root twice. Returns how many it found (fewer only on a tiny graph).
static int chooseRoots(const Graph* g, int wanted, int* roots) {
    long long candidates = 0;
    for (int v = 0; v < g->vertexCount; ++v) candidates += degreeOf(g, v) > 0;
    if (wanted > candidates) wanted = (int)candidates;
    uint64_t state = kRootSeed;
    int found = 0;
    while (found < wanted) {
        const int v = (int)(splitmix64(&state) % (uint64_t)g->vertexCount);
        int fresh = degreeOf(g, v) > 0;
        for (int k = 0; k < found && fresh; ++k) fresh = roots[k] != v;
        if (fresh) roots[found++] = v;
    }
    return found;
}

// ---------------------------------------------------------------------------
// Kernels
// ---------------------------------------------------------------------------

// Reads a word of search state that other threads are writing in this very
// kernel: dist, the queue, the counters, the pieces. In global memory the
// read goes to L2 (__ldcg), where the atomics and the other SMs' stores land,
// so this SM's L1 cannot answer with a stale line. In shared memory (the
// block loop) there is no L1 to dodge; volatile keeps the compiler from
// reusing an earlier read.
template <bool kShared, typename T>
__device__ T loadState(const T* p) {
    if (kShared) return *(const volatile T*)p;
    return __ldcg(p);
}

// How many pieces a heavy vertex is cut into; 0 for a light one, and for
// every vertex when the mapping does not use pieces.
__device__ int piecesOf(const BfsArrays& a, int v) {
    if (a.heavyDegree == kNoHeavyDegree) return 0;
    const int degree = a.rowOffsets[v + 1] - a.rowOffsets[v];
    return degree >= a.heavyDegree ? (degree + kPieceEdges - 1) / kPieceEdges : 0;
}

// Writes v's pieces from slot `first` on; a slot past the capacity is only
// reachable when a vertex was claimed twice, and the judge reports that.
__device__ void writePieces(const BfsArrays& a, int v, long long first, int count) {
    const int begin = a.rowOffsets[v], end = a.rowOffsets[v + 1];
    for (int p = 0; p < count && first + p < a.pieceCapacity; ++p) {
        const int pieceBegin = begin + p * kPieceEdges;
        a.pieces[first + p] = make_int2(pieceBegin, min(pieceBegin + kPieceEdges, end));
    }
}

// Every search starts by writing -1 (not reached) into dist, zero into every
// level counter, and the source into level 0 (with its pieces, if it is
// heavy, so level 0 is expanded like any other). A kernel rather than memsets
// and copies, so the host loop pays one launch for it and the device loops
// pay nothing extra.
__device__ void resetSearch(const BfsArrays& a, int source, long long thread, long long threads) {
    const int sourcePieces = piecesOf(a, source);
    for (long long v = thread; v < a.capacity; v += threads) a.dist[v] = (v == source) ? 0 : -1;
    for (long long i = thread; i < 2LL * (a.capacity + 1); i += threads) {
        a.counts[i] = (i == 0) ? 1u : (i == 1 ? (unsigned int)sourcePieces : 0u);
    }
    if (thread == 0) {
        a.queue[0] = source;
        writePieces(a, source, 0, sourcePieces);
    }
}

// Launch: any grid; gridDim.x * blockDim.x threads share the work.
__global__ void bfsReset(BfsArrays a, int source) {
    resetSearch(a, source, blockIdx.x * (long long)blockDim.x + threadIdx.x,
                (long long)gridDim.x * blockDim.x);
}

// One slot in the next level's queue for each lane that calls this. The
// lanes of a warp that arrive together take their slots with one atomicAdd
// between them, so a level that claims a million vertices does not queue a
// million atomics on one address.
__device__ unsigned int appendSlot(unsigned int* counter) {
    cg::coalesced_group arrived = cg::coalesced_threads();
    unsigned int base = 0u;
    if (arrived.thread_rank() == 0) base = atomicAdd(counter, arrived.size());
    return arrived.shfl(base, 0) + arrived.thread_rank();
}

// Claims v for level + 1 if nobody has, and appends it exactly once.
//
// Ownership comes from the compare-and-swap: of all threads that race for v,
// exactly one sees -1 come back. Replace it by a test-then-store and each
// racer stores the same level (so dist looks perfect) and each appends v (so
// the next frontier holds v several times). Only a count of the frontiers
// can tell.
//
// The plain read before the CAS is the cheap filter: most edges of a search
// lead to a vertex already reached, and a read costs less than an atomic.
// snippet: claim
template <bool kShared>
__device__ void claimVertex(const BfsArrays& a, const LevelWindow& w, int v) {
    if (loadState<kShared>(&a.dist[v]) != -1) return;
    if (atomicCAS(&a.dist[v], -1, w.level + 1) != -1) return;
    const long long slot = (long long)w.start + w.size + appendSlot(&a.counts[2 * (w.level + 1)]);
    if (slot < a.capacity) a.queue[slot] = v;  // beyond capacity only if a duplicate got in
    const int pieces = piecesOf(a, v);
    if (pieces > 0) {
        const unsigned int first = atomicAdd(&a.counts[2 * (w.level + 1) + 1], (unsigned int)pieces);
        writePieces(a, v, (long long)w.pieceStart + w.pieceSize + first, pieces);
    }
}
// end snippet

// Mapping 1: one thread per frontier vertex, the version most people write
// first, and a correct one. Its 32 lanes hold 32 unrelated lists, so their
// loads land in 32 places, and the warp lasts as long as its longest list:
// whoever holds "the" walks a thousand entries with 31 lanes switched off.
// Launch: gridDim.x * blockDim.x >= w.size.
// snippet: expand-thread
__global__ void expandThreadPerVertex(BfsArrays a, LevelWindow w) {
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t < w.size) {
        const int u = __ldcg(&a.queue[w.start + t]);
        for (int e = a.rowOffsets[u]; e < a.rowOffsets[u + 1]; ++e) {
            claimVertex<false>(a, w, a.colIndices[e]);
        }
    }
}
// end snippet

// Mapping 2: one warp per frontier vertex. The 32 lanes stride one list
// together, so a vertex takes ceil(degree / 32) steps and neighbouring lanes
// read neighbouring entries. The price: a vertex of degree 1 occupies 32
// lanes for one useful read, and the word graph's median vertex is small.
// Launch: gridDim.x * blockDim.x >= 32 * w.size; blockDim.x a multiple of 32.
__global__ void expandWarpPerVertex(BfsArrays a, LevelWindow w) {
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    // snippet: expand-warp
    const int lane = threadIdx.x % kWarpSize;
    const long long warp = t / kWarpSize;  // the same for all 32 lanes
    if (warp < w.size) {
        const int u = __ldcg(&a.queue[w.start + warp]);
        const int end = a.rowOffsets[u + 1];
        for (int e = a.rowOffsets[u] + lane; e < end; e += kWarpSize) {
            claimVertex<false>(a, w, a.colIndices[e]);
        }
    }
    // end snippet
}

// Exclusive prefix sum of one int per thread over the block: a shuffle scan
// inside each warp, then one warp scans the warp totals. Writes each
// thread's exclusive sum into scan[threadIdx.x] and returns the block total.
// Every thread of the block must call it (it holds two __syncthreads).
__device__ int blockExclusiveScan(int x, int* scan, int* warpTotals) {
    const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
    const int warps = blockDim.x / kWarpSize;
    int inclusive = x;
    for (int offset = 1; offset < kWarpSize; offset *= 2) {
        const int y = __shfl_up_sync(0xffffffffu, inclusive, offset);
        if (lane >= offset) inclusive += y;
    }
    if (lane == kWarpSize - 1) warpTotals[warp] = inclusive;
    __syncthreads();
    if (warp == 0) {
        int total = lane < warps ? warpTotals[lane] : 0;
        for (int offset = 1; offset < kWarpSize; offset *= 2) {
            const int y = __shfl_up_sync(0xffffffffu, total, offset);
            if (lane >= offset) total += y;
        }
        if (lane < warps) warpTotals[lane] = total;
    }
    __syncthreads();
    scan[threadIdx.x] = inclusive - x + (warp > 0 ? warpTotals[warp - 1] : 0);
    return warpTotals[warps - 1];
}

// Mapping 3, the one that adapts to degree.
//  - Light vertices: each block takes blockDim.x of them, scans their
//    degrees, and deals the edges out evenly, edge k to thread k % blockDim.x.
//    A vertex of degree 1 costs one lane for one step, a vertex of degree 200
//    gets 200 lanes. A binary search in the shared scan finds edge k's owner.
//  - Heavy vertices (degree >= a.heavyDegree) were cut into pieces of
//    kPieceEdges edges when they were claimed; every warp of the grid takes
//    pieces in turn, so a hub of 100,000 edges is walked by 400 warps at
//    once instead of by one block.
// Shared by three kernels: the host loop's, the grid loop's (the same code,
// chunks and pieces strided over a persistent grid) and the block loop's (one
// block, state in shared memory, no pieces).
// Every thread of the block must call it: the chunk loop is block-uniform.
// snippet: expand-balanced
template <bool kShared>
__device__ void expandBalanced(const BfsArrays& a, const LevelWindow& w, int* scan, int* owners,
                               int* warpTotals) {
    const long long thread = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long warps = (long long)gridDim.x * blockDim.x / kWarpSize;
    const int lane = threadIdx.x % kWarpSize;
    for (long long p = thread / kWarpSize; p < w.pieceSize; p += warps) {
        const int2 piece = __ldcg(&a.pieces[w.pieceStart + p]);  // pieces live in global memory
        for (int e = piece.x + lane; e < piece.y; e += kWarpSize) {
            claimVertex<kShared>(a, w, a.colIndices[e]);
        }
    }
    for (long long chunk = (long long)blockIdx.x * blockDim.x; chunk < w.size;
         chunk += (long long)gridDim.x * blockDim.x) {
        const long long i = chunk + threadIdx.x;
        int degree = 0, begin = 0;
        if (i < w.size) {
            const int u = loadState<kShared>(&a.queue[w.start + i]);
            begin = a.rowOffsets[u];
            degree = a.rowOffsets[u + 1] - begin;
            if (degree >= a.heavyDegree) degree = 0;  // its pieces are walked above
        }
        const int edges = blockExclusiveScan(degree, scan, warpTotals);
        owners[threadIdx.x] = begin;
        __syncthreads();
        const int vertices = (int)(w.size - chunk < blockDim.x ? w.size - chunk : blockDim.x);
        for (int k = threadIdx.x; k < edges; k += blockDim.x) {
            int low = 0, high = vertices - 1;  // the last vertex whose first edge is <= k
            while (low < high) {
                const int mid = (low + high + 1) / 2;
                if (scan[mid] <= k) low = mid; else high = mid - 1;
            }
            claimVertex<kShared>(a, w, a.colIndices[owners[low] + (k - scan[low])]);
        }
        __syncthreads();  // scan and owners are rewritten by the next chunk
    }
}
// end snippet

// Launch: blockDim.x = kThreadsPerBlock; gridDim.x * blockDim.x >= w.size
// (a chunk per block); more blocks only add warps for the pieces.
__global__ void __launch_bounds__(kThreadsPerBlock) expandBalancedKernel(BfsArrays a, LevelWindow w) {
    __shared__ int scan[kThreadsPerBlock];
    __shared__ int owners[kThreadsPerBlock];
    __shared__ int warpTotals[kWarpSize];
    expandBalanced<false>(a, w, scan, owners, warpTotals);
}

// The device loops read a level's counters after the barrier that ends the
// level before it; by then every append to them has completed.
template <bool kShared>
__device__ LevelWindow nextWindow(const BfsArrays& a, const LevelWindow& w) {
    LevelWindow next;
    next.level = w.level + 1;
    next.start = w.start + w.size;
    next.pieceStart = w.pieceStart + w.pieceSize;
    const unsigned int size = loadState<kShared>(&a.counts[2 * next.level]);
    const unsigned int pieces = loadState<kShared>(&a.counts[2 * next.level + 1]);
    // A duplicate append could push a count past the end; read no further.
    const unsigned int room = (unsigned int)(a.capacity - next.start);
    const unsigned int pieceRoom = (unsigned int)(a.pieceCapacity - next.pieceStart);
    next.size = (int)(size < room ? size : room);
    next.pieceSize = (int)(pieces < pieceRoom ? pieces : pieceRoom);
    return next;
}

__device__ unsigned long long globalNanoseconds() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

__device__ LevelWindow firstWindow(unsigned int sourcePieces) {
    LevelWindow w;
    w.level = 0;
    w.start = 0;
    w.size = 1;
    w.pieceStart = 0;
    w.pieceSize = (int)sourcePieces;
    return w;
}

// Device loop 1: the whole search in one block, with dist, the queue and
// the counters in shared memory. A level ends at __syncthreads, tens of
// nanoseconds, instead of a launch and a copy; a claim is a shared-memory
// atomic, not an L2 round trip. One SM does all the work, so this wins only
// while the graph's state fits in shared memory and its levels are small: the
// word graph's are. At the end the block copies its state out for the judge.
// Launch: <<<1, kLoopBlockThreads, 4 * (4 * vertexCount + 2) bytes>>>;
// levelClock NULL or vertexCount + 1 stamps.
// snippet: block-loop
__global__ void __launch_bounds__(kLoopBlockThreads)
bfsBlockLoop(BfsArrays global, int source, unsigned long long* levelClock) {
    __shared__ int scan[kLoopBlockThreads];
    __shared__ int owners[kLoopBlockThreads];
    __shared__ int warpTotals[kWarpSize];
    extern __shared__ int state[];
    BfsArrays a = global;  // the same graph, the search state moved on chip
    a.dist = state;
    a.queue = state + a.capacity;
    a.counts = (unsigned int*)(state + 2 * a.capacity);
    a.heavyDegree = kNoHeavyDegree;  // no pieces: one block deals out every edge
    resetSearch(a, source, threadIdx.x, blockDim.x);
    __syncthreads();
    if (levelClock != NULL && threadIdx.x == 0) levelClock[0] = globalNanoseconds();
    LevelWindow w = firstWindow(0u);
    while (w.size > 0) {
        expandBalanced<true>(a, w, scan, owners, warpTotals);
        __syncthreads();  // level barrier: every claim of this level is done
        if (levelClock != NULL && threadIdx.x == 0) levelClock[w.level + 1] = globalNanoseconds();
        w = nextWindow<true>(a, w);
    }
    for (int i = threadIdx.x; i < a.capacity; i += blockDim.x) {
        global.dist[i] = a.dist[i];
        global.queue[i] = a.queue[i];
    }
    for (int i = threadIdx.x; i < 2 * (a.capacity + 1); i += blockDim.x) global.counts[i] = a.counts[i];
}
// end snippet

// Device loop 2: the whole search in one cooperative grid, as many blocks as
// fit on the GPU at once, with grid.sync() as the level barrier. It scales
// to graphs one block cannot carry; each barrier costs a few microseconds,
// still less than a launch plus a copy to the host.
// Launch: cudaLaunchCooperativeKernel, blockDim.x = kThreadsPerBlock,
// gridDim.x <= co-resident blocks (cudaOccupancyMaxActiveBlocksPerMultiprocessor
// times the SM count); levelClock NULL or vertexCount + 1 stamps.
// snippet: grid-loop
__global__ void __launch_bounds__(kThreadsPerBlock)
bfsGridLoop(BfsArrays a, int source, unsigned long long* levelClock) {
    __shared__ int scan[kThreadsPerBlock];
    __shared__ int owners[kThreadsPerBlock];
    __shared__ int warpTotals[kWarpSize];
    cg::grid_group grid = cg::this_grid();
    resetSearch(a, source, grid.thread_rank(), grid.size());
    grid.sync();
    if (levelClock != NULL && grid.thread_rank() == 0) levelClock[0] = globalNanoseconds();
    LevelWindow w = firstWindow(loadState<false>(&a.counts[1]));
    while (w.size > 0) {
        expandBalanced<false>(a, w, scan, owners, warpTotals);
        grid.sync();  // level barrier across every SM
        if (levelClock != NULL && grid.thread_rank() == 0) levelClock[w.level + 1] = globalNanoseconds();
        w = nextWindow<false>(a, w);
    }
}
// end snippet

// Timing one level needs a kernel that does that level's reads and nothing
// more: a repeated search would start from a finished state and read almost
// nothing. This one sums the level's neighbour lists `repeats` times, with no
// atomics and no queue. Each pass mixes its pass number into the sum by XOR;
// a plain sum would be the same every pass, and the compiler would be
// entitled to do one pass and multiply.
// Launch: gridDim.x * blockDim.x >= count.
__global__ void walkLevelByThread(const int* __restrict__ vertices, int count,
                                  const int* __restrict__ rowOffsets, const int* __restrict__ colIndices,
                                  int repeats, unsigned int* __restrict__ sums) {
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (t < count) {
        const int u = vertices[t];
        const int begin = rowOffsets[u], end = rowOffsets[u + 1];
        unsigned int sum = 0u;
        for (int r = 0; r < repeats; ++r) {
            for (int e = begin; e < end; ++e) sum += (unsigned int)colIndices[e] ^ (unsigned int)r;
        }
        sums[t] = sum;
    }
}

// The walk again, 32 lanes to a vertex, the lane sums folded by shuffles.
// The lanes add the entries in another order than walkChecksum does; modular
// addition does not care. Only the walk sits under `if`: the fold must be
// reached by all 32 lanes that the 0xffffffff mask names, and it is, because
// a warp's lanes share one `warp` and so take the branch together.
// Launch: gridDim.x * blockDim.x >= 32 * count; blockDim.x a multiple of 32.
__global__ void walkLevelByWarp(const int* __restrict__ vertices, int count,
                                const int* __restrict__ rowOffsets, const int* __restrict__ colIndices,
                                int repeats, unsigned int* __restrict__ sums) {
    const long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const int lane = threadIdx.x % kWarpSize;
    const long long warp = t / kWarpSize;
    unsigned int sum = 0u;
    if (warp < count) {
        const int u = vertices[warp];
        const int end = rowOffsets[u + 1];
        for (int r = 0; r < repeats; ++r) {
            for (int e = rowOffsets[u] + lane; e < end; e += kWarpSize) {
                sum += (unsigned int)colIndices[e] ^ (unsigned int)r;
            }
        }
    }
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    }
    if (warp < count && lane == 0) sums[warp] = sum;
}

// ---------------------------------------------------------------------------
// Timing helper and launchers
// ---------------------------------------------------------------------------

// Mean milliseconds of `runs` calls of launch(ctx), after `warmups` untimed
// calls of the same launch, between two CUDA events.
static float timeMs(void (*launch)(const void* ctx), const void* ctx, int warmups, int runs) {
    for (int i = 0; i < warmups; ++i) launch(ctx);  // this launch's own module load and caches
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaGetLastError());
    cudaEvent_t events[2];
    for (int i = 0; i < 2; ++i) CUDA_CHECK(cudaEventCreate(&events[i]));
    CUDA_CHECK(cudaEventRecord(events[0]));
    for (int i = 0; i < runs; ++i) launch(ctx);
    CUDA_CHECK(cudaEventRecord(events[1]));
    CUDA_CHECK(cudaEventSynchronize(events[1]));
    CUDA_CHECK(cudaGetLastError());
    float total = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&total, events[0], events[1]));
    for (int i = 0; i < 2; ++i) CUDA_CHECK(cudaEventDestroy(events[i]));
    return total / runs;
}

static BfsArrays arraysOf(const DeviceBfs* d, int heavyDegree) {
    BfsArrays a;
    a.rowOffsets = d->rowOffsets;
    a.colIndices = d->colIndices;
    a.dist = d->dist;
    a.queue = d->queue;
    a.pieces = d->pieces;
    a.counts = d->counts;
    a.capacity = d->vertexCount;
    a.pieceCapacity = d->pieceCapacity;
    a.heavyDegree = heavyDegree;
    return a;
}

static int blocksFor(long long threads, int perBlock) { return (int)((threads + perBlock - 1) / perBlock); }

// One level of the host loop, mapped as asked.
static void launchExpand(const DeviceBfs* d, int mapping, const LevelWindow* w) {
    if (mapping == kMapThread) {
        expandThreadPerVertex<<<blocksFor(w->size, kThreadsPerBlock), kThreadsPerBlock>>>(
            arraysOf(d, kNoHeavyDegree), *w);
    } else if (mapping == kMapWarp) {
        expandWarpPerVertex<<<blocksFor((long long)w->size * kWarpSize, kThreadsPerBlock), kThreadsPerBlock>>>(
            arraysOf(d, kNoHeavyDegree), *w);
    } else {
        // A chunk of vertices per block, and enough warps for the pieces (one
        // each, or all the GPU holds at once, which then take turns).
        int blocks = blocksFor(w->size, kThreadsPerBlock);
        int pieceBlocks = blocksFor((long long)w->pieceSize * kWarpSize, kThreadsPerBlock);
        if (pieceBlocks > d->residentBlocks) pieceBlocks = d->residentBlocks;
        if (blocks < pieceBlocks) blocks = pieceBlocks;
        expandBalancedKernel<<<blocks, kThreadsPerBlock>>>(arraysOf(d, kHeavyDegree), *w);
    }
    CUDA_CHECK(cudaGetLastError());
}

// The host loop: per level one launch, then one copy of the next level's two
// counters back to the host. Without those two numbers the host has no grid
// size for the next launch and no way to tell that the search is over. That copy waits for the kernel: a
// synchronisation in the middle of the algorithm, and it is the algorithm.
// levelEvents, when not NULL, gets two events recorded around each of the
// first kMaxTableLevels launches. Returns the number of levels.
// snippet: host-loop
static int runHostLoop(const DeviceBfs* d, int mapping, int source, cudaEvent_t* levelEvents) {
    const int heavyDegree = mapping == kMapBalanced ? kHeavyDegree : kNoHeavyDegree;
    bfsReset<<<blocksFor(d->vertexCount, kThreadsPerBlock), kThreadsPerBlock>>>(arraysOf(d, heavyDegree),
                                                                               source);
    CUDA_CHECK(cudaGetLastError());
    LevelWindow w;
    w.level = 0;
    w.start = 0;
    w.size = 1;
    w.pieceStart = 0;
    const int sourceDegree = d->hostRowOffsets[source + 1] - d->hostRowOffsets[source];
    w.pieceSize = sourceDegree >= heavyDegree ? (sourceDegree + kPieceEdges - 1) / kPieceEdges : 0;
    while (w.size > 0) {
        const int timed = levelEvents != NULL && w.level < kMaxTableLevels;
        if (timed) CUDA_CHECK(cudaEventRecord(levelEvents[2 * w.level]));
        launchExpand(d, mapping, &w);
        if (timed) CUDA_CHECK(cudaEventRecord(levelEvents[2 * w.level + 1]));
        unsigned int next[2];
        CUDA_CHECK(cudaMemcpy(next, &d->counts[2 * (w.level + 1)], sizeof(next), cudaMemcpyDeviceToHost));
        w.start += w.size;
        w.pieceStart += w.pieceSize;
        const unsigned int roomLeft = (unsigned int)(d->vertexCount - w.start);
        const unsigned int pieceRoomLeft = (unsigned int)(d->pieceCapacity - w.pieceStart);
        w.size = (int)(next[0] < roomLeft ? next[0] : roomLeft);
        w.pieceSize = (int)(next[1] < pieceRoomLeft ? next[1] : pieceRoomLeft);
        ++w.level;
    }
    return w.level;
}
// end snippet

static void launchGridLoop(const DeviceBfs* d, int source, unsigned long long* levelClock) {
    BfsArrays a = arraysOf(d, kHeavyDegree);
    void* args[] = {&a, &source, &levelClock};
    CUDA_CHECK(cudaLaunchCooperativeKernel((void*)bfsGridLoop, dim3(d->gridLoopBlocks),
                                           dim3(kThreadsPerBlock), args, 0, 0));
}

static void launchBlockLoop(const DeviceBfs* d, int source, unsigned long long* levelClock) {
    bfsBlockLoop<<<1, kLoopBlockThreads, d->blockLoopShared>>>(arraysOf(d, kNoHeavyDegree), source, levelClock);
    CUDA_CHECK(cudaGetLastError());
}

// One whole search by any mapping; the device loops return -1 (their level
// count is read from the counters afterwards).
static int runSearch(const DeviceBfs* d, int mapping, int source, cudaEvent_t* levelEvents,
                     unsigned long long* levelClock) {
    if (mapping == kMapBlockLoop) {
        launchBlockLoop(d, source, levelClock);
        return -1;
    }
    if (mapping == kMapGridLoop) {
        launchGridLoop(d, source, levelClock);
        return -1;
    }
    return runHostLoop(d, mapping, source, levelEvents);
}

// Per-level times of one search, averaged over `runs`, for every mapping
// that ran. The host loops are timed by events around each level's kernel;
// the device loops by the GPU's nanosecond clock read at each grid or block
// barrier, since they have no host-visible level boundary. Both are written
// to out[mapping][level] in microseconds. Timing runs are not checked again:
// the same searches were checked against the CPU just before.
static void measureLevelTimes(const DeviceBfs* d, const int* ok, int source, int levels, int runs,
                              cudaEvent_t* levelEvents, unsigned long long* clockStamps,
                              double out[kMappingCount][kMaxTableLevels]) {
    memset(out, 0, sizeof(double) * kMappingCount * kMaxTableLevels);
    for (int m = 0; m < kMappingCount; ++m) {
        if (!ok[m]) continue;
        const int deviceLoop = m == kMapBlockLoop || m == kMapGridLoop;
        for (int run = 0; run < runs; ++run) {
            runSearch(d, m, source, deviceLoop ? NULL : levelEvents, deviceLoop ? d->levelClock : NULL);
            CUDA_CHECK(cudaDeviceSynchronize());
            if (deviceLoop) {
                CUDA_CHECK(cudaMemcpy(clockStamps, d->levelClock, sizeof(unsigned long long) * (size_t)(levels + 1),
                                      cudaMemcpyDeviceToHost));
            }
            for (int l = 0; l < levels; ++l) {
                float ms = 0.0f;
                if (!deviceLoop) CUDA_CHECK(cudaEventElapsedTime(&ms, levelEvents[2 * l], levelEvents[2 * l + 1]));
                out[m][l] += deviceLoop ? 1e-3 * (double)(clockStamps[l + 1] - clockStamps[l]) : 1000.0 * ms;
            }
        }
        for (int l = 0; l < levels; ++l) out[m][l] /= runs;
    }
}

typedef struct {
    const DeviceBfs* d;
    int mapping;
    int source;
} SearchJob;

static void runSearchJob(const void* ctx) {
    const SearchJob* job = (const SearchJob*)ctx;
    runSearch(job->d, job->mapping, job->source, NULL, NULL);
}

typedef struct {
    const DeviceBfs* d;
    int size;
    int warpMapping;
} WalkJob;

static void runWalkJob(const void* ctx) {
    const WalkJob* job = (const WalkJob*)ctx;
    const DeviceBfs* d = job->d;
    if (job->warpMapping) {
        walkLevelByWarp<<<blocksFor((long long)job->size * kWarpSize, kThreadsPerBlock), kThreadsPerBlock>>>(
            d->queue, job->size, d->rowOffsets, d->colIndices, kWalkRepeats, d->walkOut);
    } else {
        walkLevelByThread<<<blocksFor(job->size, kThreadsPerBlock), kThreadsPerBlock>>>(
            d->queue, job->size, d->rowOffsets, d->colIndices, kWalkRepeats, d->walkOut);
    }
    CUDA_CHECK(cudaGetLastError());
}

// ---------------------------------------------------------------------------
// Device setup and the judge's comparison
// ---------------------------------------------------------------------------

static void uploadGraph(const Graph* g, DeviceBfs* d) {
    const size_t vertexBytes = sizeof(int) * (size_t)g->vertexCount;
    memset(d, 0, sizeof(*d));
    d->vertexCount = g->vertexCount;
    d->entryCount = g->rowOffsets[g->vertexCount];
    d->hostRowOffsets = g->rowOffsets;
    CUDA_CHECK(cudaMalloc(&d->rowOffsets, vertexBytes + sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d->colIndices, sizeof(int) * (size_t)(d->entryCount > 0 ? d->entryCount : 1)));
    CUDA_CHECK(cudaMalloc(&d->dist, vertexBytes));
    CUDA_CHECK(cudaMalloc(&d->queue, vertexBytes));
    d->pieceCapacity = d->entryCount / kPieceEdges + d->vertexCount;
    CUDA_CHECK(cudaMalloc(&d->pieces, sizeof(int2) * (size_t)d->pieceCapacity));
    CUDA_CHECK(cudaMalloc(&d->counts, sizeof(unsigned int) * 2 * ((size_t)g->vertexCount + 1)));
    CUDA_CHECK(cudaMalloc(&d->levelClock, sizeof(unsigned long long) * ((size_t)g->vertexCount + 1)));
    CUDA_CHECK(cudaMalloc(&d->walkOut, sizeof(unsigned int) * (size_t)g->vertexCount));
    CUDA_CHECK(cudaMemcpy(d->rowOffsets, g->rowOffsets, vertexBytes + sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->colIndices, g->colIndices, sizeof(int) * (size_t)d->entryCount,
                          cudaMemcpyHostToDevice));
    int device = 0, smCount = 0, perSm = 0;
    CUDA_CHECK(cudaGetDevice(&device));
    CUDA_CHECK(cudaDeviceGetAttribute(&smCount, cudaDevAttrMultiProcessorCount, device));
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, bfsGridLoop, kThreadsPerBlock, 0));
    d->gridLoopBlocks = perSm * smCount;
    CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&perSm, expandBalancedKernel, kThreadsPerBlock, 0));
    d->residentBlocks = perSm * smCount;
    // The block loop keeps dist, the queue and 2 (V + 1) counters on chip.
    int sharedOptIn = 0;
    CUDA_CHECK(cudaDeviceGetAttribute(&sharedOptIn, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
    cudaFuncAttributes attributes;
    CUDA_CHECK(cudaFuncGetAttributes(&attributes, bfsBlockLoop));
    const size_t stateBytes = sizeof(int) * (4 * (size_t)g->vertexCount + 2);
    d->blockLoopShared = stateBytes + attributes.sharedSizeBytes <= (size_t)sharedOptIn ? stateBytes : 0;
    if (d->blockLoopShared > 0) {
        CUDA_CHECK(cudaFuncSetAttribute(bfsBlockLoop, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        (int)d->blockLoopShared));
    }
}

static void freeDevice(DeviceBfs* d) {
    CUDA_CHECK(cudaFree(d->rowOffsets));
    CUDA_CHECK(cudaFree(d->colIndices));
    CUDA_CHECK(cudaFree(d->dist));
    CUDA_CHECK(cudaFree(d->queue));
    CUDA_CHECK(cudaFree(d->pieces));
    CUDA_CHECK(cudaFree(d->counts));
    CUDA_CHECK(cudaFree(d->levelClock));
    CUDA_CHECK(cudaFree(d->walkOut));
}

// Runs one search and judges it against the CPU: every distance exactly,
// the level count, and every level's size, whose sum is the frontier total
// that catches a vertex appended twice (the distances cannot: a duplicate
// has the right distance). Poisons dist and the counters first, so a reset
// that missed an entry shows. Prints nothing when right; returns 0 or 1.
static int checkSearch(const DeviceBfs* d, int mapping, const Search* want, int* gotDist,
                       unsigned int* gotCounts, const Graph* g) {
    const size_t countBytes = sizeof(unsigned int) * 2 * ((size_t)d->vertexCount + 1);
    CUDA_CHECK(cudaMemset(d->dist, 0x7f, sizeof(int) * (size_t)d->vertexCount));
    CUDA_CHECK(cudaMemset(d->counts, 0x7f, countBytes));
    const int hostLevels = runSearch(d, mapping, want->source, NULL, NULL);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(gotDist, d->dist, sizeof(int) * (size_t)d->vertexCount, cudaMemcpyDeviceToHost));
    CUDA_CHECK(cudaMemcpy(gotCounts, d->counts, countBytes, cudaMemcpyDeviceToHost));
    char name[24];
    for (int v = 0; v < d->vertexCount; ++v) {
        if (gotDist[v] != want->dist[v]) {
            printf("  %s, source %d: distance of vertex %d (%s) is %d, want %d\n", kMappingName[mapping],
                   want->source, v, nameOf(g, v, name), gotDist[v], want->dist[v]);
            return 1;
        }
    }
    int levels = 0;
    long long total = 0;
    while (levels <= d->vertexCount && gotCounts[2 * levels] != 0u) total += gotCounts[2 * levels++];
    if (hostLevels >= 0 && hostLevels != levels) {
        printf("  %s, source %d: the host loop ran %d levels, the counters hold %d\n", kMappingName[mapping],
               want->source, hostLevels, levels);
        return 1;
    }
    if (levels != want->levels) {
        printf("  %s, source %d: %d levels, want %d\n", kMappingName[mapping], want->source, levels,
               want->levels);
        return 1;
    }
    for (int l = 0; l < levels; ++l) {
        if (gotCounts[2 * l] != (unsigned int)want->levelSize[l]) {
            printf("  %s, source %d: level %d held %u vertices, want %d; frontiers held %lld in all, want %d (a duplicate append?)\n",
                   kMappingName[mapping], want->source, l, gotCounts[2 * l], want->levelSize[l], total,
                   want->reached);
            return 1;
        }
    }
    return 0;
}

// ---------------------------------------------------------------------------
// Flags
// ---------------------------------------------------------------------------

typedef struct {
    int scale;
    int roots;
    int small;
    const char* matrixPath;
    const char* wordsPath;
} Options;

static int parseIntFlag(const char* flag, const char* value, int low, int high, int* out) {
    if (value == NULL) {
        fprintf(stderr, "flag %s: needs a value, an integer from %d to %d\n", flag, low, high);
        return 0;
    }
    char* end = NULL;
    errno = 0;
    const long v = strtol(value, &end, 10);
    if (errno != 0 || end == value || *end != '\0' || v < low || v > high) {
        fprintf(stderr, "flag %s: `%s` is not an integer from %d to %d\n", flag, value, low, high);
        return 0;
    }
    *out = (int)v;
    return 1;
}

static int parseFlags(int argc, char** argv, Options* o) {
    o->scale = -1;
    o->roots = -1;  // resolved after all flags are read: --small changes the default
    o->small = 0;
    o->matrixPath = NULL;
    o->wordsPath = kGraphPath;
    for (int i = 1; i < argc; ++i) {
        const char* arg = argv[i];
        const char* value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--kron") == 0) {
            if (!parseIntFlag(arg, value, kMinScale, kMaxScale, &o->scale)) return 0;
            ++i;
        } else if (strcmp(arg, "--roots") == 0) {
            if (!parseIntFlag(arg, value, 1, kMaxRoots, &o->roots)) return 0;
            ++i;
        } else if (strcmp(arg, "--words") == 0) {
            if (value == NULL) {
                fprintf(stderr, "flag --words: needs a file in word-graph.txt's format\n");
                return 0;
            }
            o->wordsPath = value;
            ++i;
        } else if (strcmp(arg, "--small") == 0) {
            o->small = 1;
        } else if (arg[0] == '-') {
            fprintf(stderr, "flag %s: unknown (flags: --kron SCALE, --roots N, --small, --words FILE, or a .mtx path)\n",
                    arg);
            return 0;
        } else if (o->matrixPath != NULL) {
            fprintf(stderr, "flag %s: a second graph path; give one Matrix Market file at most\n", arg);
            return 0;
        } else {
            o->matrixPath = arg;
        }
    }
    if (o->matrixPath != NULL && o->scale >= 0) {
        fprintf(stderr, "flag --kron: a Matrix Market path was given too; choose one\n");
        return 0;
    }
    if (o->scale < 0) o->scale = o->small ? kSmallScale : kDefaultScale;
    if (o->roots < 0) o->roots = o->small ? kSmallRoots : kDefaultRoots;
    return 1;
}

// ---------------------------------------------------------------------------
// main
// ---------------------------------------------------------------------------

static double harmonicMean(const double* x, int n) {
    double inverse = 0.0;
    for (int i = 0; i < n; ++i) inverse += 1.0 / x[i];
    return n / inverse;
}

int main(int argc, char** argv) {
    Options options;
    if (!parseFlags(argc, argv, &options)) return EXIT_FAILURE;
    const int timedRuns = options.small ? kSmallTimedRuns : kTimedRuns;
    const int kronTimedRuns = options.small ? kSmallTimedRuns : kKronTimedRuns;

    // 1. Load and validate, generate.
    Graph words, big;
    if (!loadWordGraph(options.wordsPath, &words)) return EXIT_FAILURE;
    char bigTitle[160];
    if (options.matrixPath != NULL) {
        if (!loadMatrixMarket(options.matrixPath, &big)) {
            freeGraph(&words);
            return EXIT_FAILURE;
        }
        snprintf(bigTitle, sizeof(bigTitle), "Graph: %s (symmetrised, self-loops and duplicates dropped)",
                 options.matrixPath);
    } else {
        generateKronecker(options.scale, &big);
        snprintf(bigTitle, sizeof(bigTitle),
                 "Graph: Graph500 Kronecker, scale %d, edge factor %d, A B C = %.2f %.2f %.2f, seed %#llx "
                 "(symmetrised, self-loops and duplicates dropped)",
                 options.scale, kKronEdgeFactor, kKronA, kKronB, kKronC, (unsigned long long)kKronSeed);
    }

    printf("Day 38: level-synchronous BFS, thread / warp / edge-balanced mappings, host loop vs device loop\n");

    // 2. Host analysis of the word graph.
    const int wordCount = words.vertexCount;
    int* order = (int*)malloc(sizeof(int) * (size_t)(big.vertexCount > wordCount ? big.vertexCount : wordCount));
    int* levelStart = (int*)malloc(sizeof(int) * ((size_t)(big.vertexCount > wordCount ? big.vertexCount : wordCount) + 1));
    int* scratch = (int*)malloc(sizeof(int) * (size_t)wordCount);
    char titleWords[200];
    snprintf(titleWords, sizeof(titleWords), "Graph: %s", options.wordsPath);
    printDegreeStats(&words, titleWords);
    int mostLevels = 0, tied = 0;
    const int wordSource = chooseWordSource(&words, order, levelStart, scratch, &mostLevels, &tied);
    free(scratch);
    const char* sourceWord = words.labels + (size_t)wordSource * (kMaxLabelLength + 1);
    printf("  source: \"%s\" (vertex %d), first in alphabetical order among the %d words whose search needs the most levels (%d)\n",
           sourceWord, wordSource, tied, mostLevels);
    Search wordSearch;
    recordSearch(&words, wordSource, order, levelStart, &wordSearch);
    printf("\nBFS from \"%s\": the work of each level, counted from the graph (heavy = degree >= %d)\n", sourceWord,
           kHeavyDegree);
    printLevelWork(&words, order, levelStart, wordSearch.levels);
    printf("  reached %d of %d vertices in %d levels: a host loop makes %d launches and %d round trips\n",
           wordSearch.reached, wordCount, wordSearch.levels, wordSearch.levels + 1, wordSearch.levels);
    // The frontiers in CPU order, for the isolated walk.
    int* wordOrder = (int*)malloc(sizeof(int) * (size_t)wordSearch.reached);
    int* wordLevelStart = (int*)malloc(sizeof(int) * ((size_t)wordSearch.levels + 1));
    memcpy(wordOrder, order, sizeof(int) * (size_t)wordSearch.reached);
    memcpy(wordLevelStart, levelStart, sizeof(int) * ((size_t)wordSearch.levels + 1));

    // 3. Host analysis of the big graph.
    printDegreeStats(&big, bigTitle);
    int roots[kMaxRoots];
    const int rootCount = chooseRoots(&big, options.roots, roots);
    Search* bigSearch = (Search*)calloc((size_t)(rootCount > 0 ? rootCount : 1), sizeof(Search));
    printf("\n%d roots of degree >= 1 (seed %#llx); Graph500 counts the edges of each root's component\n", rootCount,
           (unsigned long long)kRootSeed);
    printf("%6s %10s %10s %12s %7s\n", "root", "vertex", "reached", "edges", "levels");
    for (int r = 0; r < rootCount; ++r) {
        recordSearch(&big, roots[r], order, levelStart, &bigSearch[r]);
        printf("%6d %10d %10d %12lld %7d\n", r, roots[r], bigSearch[r].reached, bigSearch[r].componentEdges,
               bigSearch[r].levels);
        if (r == 0) {
            // Root 0's frontiers are the ones the per-level table below times.
        }
    }
    if (rootCount > 0) {
        bfsCpu(&big, roots[0], bigSearch[0].dist, order, levelStart);  // dist is rewritten identically
        printf("\nBFS from root 0 (vertex %d): the work of each level\n", roots[0]);
        printLevelWork(&big, order, levelStart, bigSearch[0].levels);
    }
    free(order);
    free(levelStart);

    // 4. The first CUDA call.
    int deviceCount = 0;
    const cudaError_t probe = cudaGetDeviceCount(&deviceCount);
    if (probe != cudaSuccess || deviceCount == 0) {
        printf("no CUDA device found (%s): the host part above ran, the GPU part did not\n",
               probe != cudaSuccess ? cudaGetErrorString(probe) : "0 devices");
        for (int r = 0; r < rootCount; ++r) freeSearch(&bigSearch[r]);
        free(bigSearch);
        freeSearch(&wordSearch);
        free(wordOrder);
        free(wordLevelStart);
        freeGraph(&words);
        freeGraph(&big);
        return 2;
    }

    // 5. GPU part.
    int failures = 0;
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    int driver = 0, runtime = 0, cooperative = 0;
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    CUDA_CHECK(cudaDeviceGetAttribute(&cooperative, cudaDevAttrCooperativeLaunch, 0));
    printf("\n~ GPU: {%s}, compute capability %d.%d, %d SMs, {driver %d.%d, runtime %d.%d}\n", prop.name,
           prop.major, prop.minor, prop.multiProcessorCount, driver / 1000, (driver % 1000) / 10,
           runtime / 1000, (runtime % 1000) / 10);
    if (!cooperative) {
        printf("this device cannot launch cooperative kernels: the grid loop needs cudaDevAttrCooperativeLaunch\n");
        ++failures;
    }
    int ok[kMappingCount];
    const int levelCap = kMaxTableLevels;
    cudaEvent_t levelEvents[2 * kMaxTableLevels];
    for (int i = 0; i < 2 * levelCap; ++i) CUDA_CHECK(cudaEventCreate(&levelEvents[i]));

    // ---- Word graph ----
    DeviceBfs dw;
    uploadGraph(&words, &dw);
    int* gotDist = (int*)malloc(sizeof(int) * (size_t)(big.vertexCount > wordCount ? big.vertexCount : wordCount));
    unsigned int* gotCounts =
        (unsigned int*)malloc(sizeof(unsigned int) * 2 * ((size_t)(big.vertexCount > wordCount ? big.vertexCount : wordCount) + 1));
    unsigned long long* clockStamps =
        (unsigned long long*)malloc(sizeof(unsigned long long) * ((size_t)(big.vertexCount > wordCount ? big.vertexCount : wordCount) + 1));
    printf("\nWord graph: correctness (distances, level count, every level's size against the CPU)\n");
    for (int m = 0; m < kMappingCount; ++m) {
        ok[m] = !(m == kMapGridLoop && !cooperative) && !(m == kMapBlockLoop && dw.blockLoopShared == 0);
        if (m == kMapBlockLoop && dw.blockLoopShared == 0) {
            printf("  %-20s not run: the state of %d vertices does not fit one block's shared memory\n",
                   kMappingName[m], wordCount);
            ++failures;  // the word graph is the block loop's graph: not running it is a failure
        }
        if (!ok[m]) continue;
        if (checkSearch(&dw, m, &wordSearch, gotDist, gotCounts, &words) != 0) {
            ok[m] = 0;
            ++failures;
        } else {
            printf("  %-20s distances match on all %d vertices; %d levels; frontiers held %d vertices, no duplicates\n",
                   kMappingName[m], wordCount, wordSearch.levels, wordSearch.reached);
        }
    }

    // Whole search: reset included; the host loops include a launch and a
    // round trip per level, because the algorithm, written that way, needs them.
    printf("\nWord graph: whole BFS from \"%s\", %d levels, mean of %d runs; reset included, and for the host loops %d launches and %d device-to-host copies\n",
           sourceWord, wordSearch.levels, timedRuns, wordSearch.levels + 1, wordSearch.levels);
    printf("%-22s %12s %14s %12s\n", "mapping", "us per bfs", "us per level", "vs host warp");
    float wholeMs[kMappingCount];
    for (int m = 0; m < kMappingCount; ++m) {
        wholeMs[m] = 0.0f;
        if (!ok[m]) continue;
        SearchJob job = {&dw, m, wordSource};
        wholeMs[m] = timeMs(runSearchJob, &job, kWarmupRuns, timedRuns);
    }
    float bestDeviceMs = 0.0f;
    for (int m = 0; m < kMappingCount; ++m) {
        if (!ok[m]) continue;
        const double vsWarp = ok[kMapWarp] ? wholeMs[kMapWarp] / wholeMs[m] : 0.0;
        printf("~ %-20s %12.2f %14.2f %11.2fx\n", kMappingName[m], 1000.0 * wholeMs[m],
               1000.0 * wholeMs[m] / wordSearch.levels, vsWarp);
        if ((m == kMapBlockLoop || m == kMapGridLoop) && (bestDeviceMs == 0.0f || wholeMs[m] < bestDeviceMs)) {
            bestDeviceMs = wholeMs[m];
        }
        if (!(wholeMs[m] > 0.0f)) {
            printf("  %s: whole-search time is not positive\n", kMappingName[m]);
            ++failures;
        }
    }

    // Per level: the host loops' kernels timed by events around each launch,
    // the device loops' levels by the GPU's nanosecond clock at each barrier.
    int wordTableLevels = wordSearch.levels < levelCap ? wordSearch.levels : levelCap;
    double levelUs[kMappingCount][kMaxTableLevels];
    measureLevelTimes(&dw, ok, wordSource, wordTableLevels, timedRuns, levelEvents, clockStamps, levelUs);
    printf("\nWord graph: time per level, us (host loops: the kernel alone, between events; device loops: barrier to barrier)\n");
    printf("%6s %9s %9s %10s %10s %10s %10s %10s\n", "level", "frontier", "edges", "h-thread", "h-warp",
           "h-balanced", "d-block", "d-grid");
    double kernelSumUs[kMappingCount];
    memset(kernelSumUs, 0, sizeof(kernelSumUs));
    for (int l = 0; l < wordTableLevels; ++l) {
        long long edges = 0;
        for (int k = wordLevelStart[l]; k < wordLevelStart[l + 1]; ++k) edges += degreeOf(&words, wordOrder[k]);
        printf("~ %4d %9d %9lld", l, wordSearch.levelSize[l], edges);
        for (int m = 0; m < kMappingCount; ++m) {
            printf(" %10.2f", levelUs[m][l]);
            kernelSumUs[m] += levelUs[m][l];
        }
        printf("\n");
    }
    printf("plotspec: levels | line | Word graph: frontier size per level | level | vertices in the frontier\n");
    for (int l = 0; l < wordTableLevels; ++l) printf("~ plot: levels | frontier | %d | %d\n", l, wordSearch.levelSize[l]);
    printf("plotspec: level-time | line | Word graph: time per level by mapping | level | microseconds\n");
    for (int m = 0; m < kMappingCount; ++m) {
        if (!ok[m]) continue;
        for (int l = 0; l < wordTableLevels; ++l) {
            printf("~ plot: level-time | %s | %d | %.3f\n", kMappingName[m], l, levelUs[m][l]);
        }
    }
    printf("Where a host-loop level's time goes (whole-search time per level minus the kernel's own time):\n");
    for (int m = kMapThread; m <= kMapBalanced; ++m) {
        if (!ok[m]) continue;
        const double perLevel = 1000.0 * wholeMs[m] / wordSearch.levels;
        const double kernel = kernelSumUs[m] / wordTableLevels;
        printf("~ %-20s %8.2f us per level, %8.2f us in the kernel, %8.2f us launch, copy and wait\n", kMappingName[m],
               perLevel, kernel, perLevel - kernel);
    }

    // One level alone: same vertices, same reads, no atomics.
    printf("\nWord graph: one level in isolation, neighbour lists walked %d times, checksums compared exactly\n",
           kWalkRepeats);
    printf("%6s %9s %9s %8s %12s %12s %9s\n", "level", "frontier", "edges", "max deg", "thread ms", "warp ms",
           "speedup");
    unsigned int* wantWalk = (unsigned int*)malloc(sizeof(unsigned int) * (size_t)wordCount);
    unsigned int* gotWalk = (unsigned int*)malloc(sizeof(unsigned int) * (size_t)wordCount);
    int walkedLevels = 0;
    for (int l = 0; l < wordSearch.levels; ++l) {
        const int begin = wordLevelStart[l], size = wordLevelStart[l + 1] - begin;
        long long edges = 0;
        int maxDegree = 0;
        for (int k = begin; k < begin + size; ++k) {
            const int d = degreeOf(&words, wordOrder[k]);
            edges += d;
            if (d > maxDegree) maxDegree = d;
        }
        if (edges < kWalkMinEdges) continue;
        ++walkedLevels;
        for (int k = 0; k < size; ++k) wantWalk[k] = walkChecksum(&words, wordOrder[begin + k], kWalkRepeats);
        CUDA_CHECK(cudaMemcpy(dw.queue, wordOrder + begin, sizeof(int) * (size_t)size, cudaMemcpyHostToDevice));
        float walkMs[2];
        for (int warpMapping = 0; warpMapping < 2; ++warpMapping) {
            CUDA_CHECK(cudaMemset(dw.walkOut, 0xff, sizeof(unsigned int) * (size_t)size));
            WalkJob job = {&dw, size, warpMapping};
            walkMs[warpMapping] = timeMs(runWalkJob, &job, kWarmupRuns, timedRuns);
            CUDA_CHECK(cudaMemcpy(gotWalk, dw.walkOut, sizeof(unsigned int) * (size_t)size, cudaMemcpyDeviceToHost));
            for (int k = 0; k < size; ++k) {
                if (gotWalk[k] != wantWalk[k]) {
                    printf("  level %d, %s walk: slot %d (vertex %d) summed %u, want %u\n", l,
                           warpMapping ? "warp" : "thread", k, wordOrder[begin + k], gotWalk[k], wantWalk[k]);
                    ++failures;
                    break;
                }
            }
        }
        printf("~ %4d %9d %9lld %8d %12.4f %12.4f %8.2fx\n", l, size, edges, maxDegree, walkMs[0], walkMs[1],
               walkMs[0] / walkMs[1]);
    }
    printf("  %d levels walked (those with >= %d edges); every checksum compared with the host's\n", walkedLevels,
           kWalkMinEdges);
    free(wantWalk);
    free(gotWalk);
    freeDevice(&dw);

    // ---- Kronecker / Matrix Market graph ----
    DeviceBfs db;
    uploadGraph(&big, &db);
    const int blockLoopFits = db.blockLoopShared > 0;
    printf("\n%s: correctness from %d roots\n", options.matrixPath ? "Matrix Market graph" : "Kronecker graph", rootCount);
    for (int m = 0; m < kMappingCount; ++m) {
        ok[m] = !(m == kMapGridLoop && !cooperative) && !(m == kMapBlockLoop && !blockLoopFits);
        if (m == kMapBlockLoop && !blockLoopFits) {
            printf("  %-20s not run: the state of %d vertices does not fit one block's shared memory\n",
                   kMappingName[m], db.vertexCount);
        }
        if (!ok[m]) continue;
        int bad = 0;
        for (int r = 0; r < rootCount; ++r) bad += checkSearch(&db, m, &bigSearch[r], gotDist, gotCounts, &big);
        if (bad > 0) {
            ok[m] = 0;
            failures += bad;
        } else {
            printf("  %-20s distances, level counts and level sizes match the CPU from all %d roots\n", kMappingName[m],
                   rootCount);
        }
    }
    printf("\nWhole BFS per root, mean of %d runs after warm-up; GTEPS = component edges / time, harmonic mean over roots\n",
           kronTimedRuns);
    printf("%-22s %12s %12s %12s %12s\n", "mapping", "mean ms", "GTEPS (hm)", "min GTEPS", "max GTEPS");
    double gteps[kMaxRoots];
    double bestGteps = 0.0;
    int bestMapping = -1;
    double rootMs[kMappingCount][kMaxRoots];
    for (int m = 0; m < kMappingCount; ++m) {
        if (!ok[m] || rootCount == 0) continue;
        double sumMs = 0.0, low = 0.0, high = 0.0;
        for (int r = 0; r < rootCount; ++r) {
            SearchJob job = {&db, m, roots[r]};
            rootMs[m][r] = timeMs(runSearchJob, &job, r == 0 ? kWarmupRuns : 1, kronTimedRuns);
            gteps[r] = (double)bigSearch[r].componentEdges / (rootMs[m][r] * 1e-3) * 1e-9;
            sumMs += rootMs[m][r];
            if (r == 0 || gteps[r] < low) low = gteps[r];
            if (r == 0 || gteps[r] > high) high = gteps[r];
        }
        const double hm = harmonicMean(gteps, rootCount);
        printf("~ %-20s %12.3f %12.2f %12.2f %12.2f\n", kMappingName[m], sumMs / rootCount, hm, low, high);
        if (hm > bestGteps) {
            bestGteps = hm;
            bestMapping = m;
        }
    }
    printf("plotspec: gteps | bar | Graph500 GTEPS by mapping (harmonic mean over roots) | mapping | GTEPS\n");
    for (int m = 0; m < kMappingCount; ++m) {
        if (!ok[m] || rootCount == 0) continue;
        for (int r = 0; r < rootCount; ++r) gteps[r] = (double)bigSearch[r].componentEdges / (rootMs[m][r] * 1e-3) * 1e-9;
        printf("~ plot: gteps | %s | %s | %.3f\n", kMappingName[m], kMappingName[m], harmonicMean(gteps, rootCount));
    }

    // Per level for root 0: where each mapping spends its time.
    if (rootCount > 0) {
        const int levels = bigSearch[0].levels < levelCap ? bigSearch[0].levels : levelCap;
        double bigLevelUs[kMappingCount][kMaxTableLevels];
        measureLevelTimes(&db, ok, roots[0], levels, kronTimedRuns, levelEvents, clockStamps, bigLevelUs);
        printf("\nRoot 0: time per level, us (host loops: the kernel alone; device loops: barrier to barrier)\n");
        printf("%6s %9s %10s %10s %10s %10s %10s  %s\n", "level", "frontier", "h-thread", "h-warp", "h-balanced",
               "d-block", "d-grid", "fastest host-loop kernel");
        for (int l = 0; l < levels; ++l) {
            printf("~ %4d %9d", l, bigSearch[0].levelSize[l]);
            int fastest = -1;
            for (int m = 0; m < kMappingCount; ++m) {
                printf(" %10.2f", bigLevelUs[m][l]);
                if (m <= kMapBalanced && ok[m] && (fastest < 0 || bigLevelUs[m][l] < bigLevelUs[fastest][l])) fastest = m;
            }
            printf("  {%s}\n", fastest >= 0 ? kMappingName[fastest] : "none");
        }
        printf("plotspec: kron-level-time | line | Root 0: time per level by mapping | level | microseconds\n");
        for (int m = 0; m < kMappingCount; ++m) {
            if (!ok[m]) continue;
            for (int l = 0; l < levels; ++l) printf("~ plot: kron-level-time | %s | %d | %.3f\n", kMappingName[m], l, bigLevelUs[m][l]);
        }
    }
    freeDevice(&db);
    for (int i = 0; i < 2 * levelCap; ++i) CUDA_CHECK(cudaEventDestroy(levelEvents[i]));

    // Goals and headlines.
    const double deviceSpeedup = bestDeviceMs > 0.0f && ok[kMapWarp] ? wholeMs[kMapWarp] / bestDeviceMs : 0.0;
    printf("\n~ word graph: host-loop warp %.2f us, best device loop %.2f us: %.2fx (goal >= 5x: {%s})\n",
           1000.0 * wholeMs[kMapWarp], 1000.0 * bestDeviceMs, deviceSpeedup, deviceSpeedup >= 5.0 ? "met" : "not met");
    if (options.matrixPath == NULL) {
        printf("~ Kronecker scale %d: best mapping {%s} at %.2f GTEPS (goal >= 20 at scale 21: {%s})\n", options.scale,
               bestMapping >= 0 ? kMappingName[bestMapping] : "none", bestGteps, bestGteps >= 20.0 ? "met" : "not met");
    } else {
        printf("~ Matrix Market graph: best mapping {%s} at %.2f GTEPS\n",
               bestMapping >= 0 ? kMappingName[bestMapping] : "none", bestGteps);
    }
    printf("headline: device_loop_speedup_wordgraph = %.2f\n", deviceSpeedup);
    if (options.matrixPath == NULL) {
        printf("headline: kron%d_gteps_best = %.2f\n", options.scale, bestGteps);
    } else {
        printf("headline: mtx_gteps_best = %.2f\n", bestGteps);
    }

    free(gotDist);
    free(gotCounts);
    free(clockStamps);
    for (int r = 0; r < rootCount; ++r) freeSearch(&bigSearch[r]);
    free(bigSearch);
    freeSearch(&wordSearch);
    free(wordOrder);
    free(wordLevelStart);
    freeGraph(&words);
    freeGraph(&big);
    printf("%s\n", failures == 0 ? "PASS" : "FAIL");
    return failures == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
