// Day 37: sparse matrix times vector, y = A * x, with A stored as CSR.
//
// The question: which mapping of rows onto threads is fastest, why does the
// answer change with the matrix, and how close does each mapping get to the
// memory system's limit and to cuSPARSE? SpMV does two flops per nonzero and
// moves at least eight bytes for them, so it is a bandwidth problem, and the
// ceiling is a device-to-device copy measured in the same run.
//
// Three inputs, because one matrix would hide half of the lesson:
//   cuda-words.mtx  a real, skewed matrix from the toolkit's own header
//                   comments: rows are words, entry (i, j) counts how often
//                   words i and j sit side by side. Median row 3, longest
//                   row over 1,000 ("the"). Small: it fits in L2 and shows
//                   what launch latency and one long row cost.
//   stencil N       the 3D 7-point Laplacian pattern on an N^3 grid: every
//                   row 4 to 7 long, neighbours in neighbouring columns. The
//                   regular case, where a good kernel should approach a copy.
//   kron SCALE      a Graph500 Kronecker graph (A, B, C = 0.57, 0.19, 0.19,
//                   16 edges per vertex, fixed seed): a power law, many empty
//                   rows and a few rows with tens of thousands of entries.
//
// Four lesson kernels, in the order the lesson teaches them: thread per row,
// warp per row, a sub-warp mapping whose width comes from the row lengths,
// and a nonzero-tiled kernel that gives every block the same amount of work
// whatever the rows look like. cuSPARSE's cusparseSpMV runs in the same
// binary as the baseline. Every result is checked against a double precision
// CPU reference before it is timed.
//
// Build: nvcc -O3 -arch=sm_90 -o spmv spmv.cu -lcusparse
// Run: ./spmv                     cuda-words.mtx, stencil 128^3, kron scale 21
// Run: ./spmv --small             the same code paths on small inputs
// Run: ./spmv --stencil 64 --kron 18     only the generated inputs named
// Run: ./spmv some.mtx            any Matrix Market file instead
//
// Run it from this folder: it opens cuda-words.mtx by a relative path.
// Transcript of the verified run: the newest evidence/run-*.txt.

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>

#include <cuda_runtime.h>
#include <cusparse.h>

// ---------------------------------------------------------------- constants

static const int kWarpSize = 32;  // every GPU this course targets
// 8 warps: enough to hide latency in the tiled kernel's two phases, and the
// tile kernel's reduction gives one lane to each of up to 256 rows.
static const int kThreadsPerBlock = 256;
// The nonzero tile of one block in the tiled kernel: 2048 products are 8 KiB
// of shared memory, so 8 blocks (the 2048-thread limit of an SM) still fit
// in its shared memory, and 2048 is 8 nonzeros, two 16-byte loads, per thread.
#define TILE_NNZ 2048
static const int kTileNnz = TILE_NNZ;
// A tile holds at most this many rows, one per thread of the block, so the
// reduction phase never needs more than one pass over the rows.
static const int kTileMaxRows = 256;
// A tile closes before its longest row would need more than this many serial
// steps in the reduction phase; a row that alone overflows a tile is split.
static const int kTileMaxReduceSteps = 32;
// Floats past the end of y that the checks require to stay untouched, so a
// kernel that writes y[rows] is caught even though no row is wrong.
static const int kGuardFloats = 64;
static const int kWarmupRuns = 3;  // the first launch of each kernel loads it
static const int kTimedRuns = 20;  // mean of 20 lifts the stencil's ~50 us above noise
static const int kMaxInputs = 8;   // more is a typo, not a benchmark
static const int kMaxLineLength = 1024;  // Matrix Market lines are short

// Default inputs. 128^3 and scale 21 make the stencil's working set 142 MB and
// the graph's 540 MB, several times the H200's 60 MB L2, so both are timed
// from HBM and not from cache.
static const char* const kWordsPath = "cuda-words.mtx";
static const int kDefaultStencil = 128;
static const int kDefaultKronScale = 21;
// --small: still has empty rows, rows longer than a tile, and a last tile.
static const int kSmallStencil = 16;
static const int kSmallKronScale = 14;
static const int kMinStencil = 2;
static const int kMaxStencil = 640;  // 7 * 640^3 nonzeros still fit in int32
static const int kMinKronScale = 4;
static const int kMaxKronScale = 24;  // 2^24 * 32 stored entries fit in int32
static const int kKronEdgeFactor = 16;  // Graph500's edges per vertex
static const double kKronA = 0.57;      // Graph500 initiator probabilities
static const double kKronB = 0.19;
static const double kKronC = 0.19;
// Fixed seeds: every run of every machine draws the same matrices and x.
static const uint64_t kSeedKron = 0x5eed0037a11ce5ULL;
static const uint64_t kSeedValues = 0x7a1e5eed37ULL;
static const uint64_t kSeedX = 0x0ddba11c0ffeeULL;
// Copy ceiling: 1 GiB each way, far larger than L2, so HBM is what is timed.
static const size_t kCopyBytes = (size_t)1 << 30;
static const size_t kCopyBytesSmall = (size_t)64 << 20;  // --small: sanitizer speed
// The largest integer a float holds exactly; larger integer values are refused.
static const long long kMaxExactInteger = 16777216;

static_assert(kThreadsPerBlock % kWarpSize == 0, "a block is whole warps");
static_assert(TILE_NNZ % 4 == 0, "the tile is loaded four nonzeros at a time");
static_assert(kTileMaxRows <= kThreadsPerBlock, "one thread per tile row");

// ---------------------------------------------------------------- error macros

#define CUDA_CHECK(call)                                                   \
    do {                                                                   \
        cudaError_t status_ = (call);                                      \
        if (status_ != cudaSuccess) {                                      \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,  \
                    #call, cudaGetErrorString(status_));                   \
            exit(EXIT_FAILURE);                                            \
        }                                                                  \
    } while (0)

#define CUSPARSE_CHECK(call)                                               \
    do {                                                                   \
        cusparseStatus_t status_ = (call);                                 \
        if (status_ != CUSPARSE_STATUS_SUCCESS) {                          \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__,  \
                    #call, cusparseGetErrorString(status_));               \
            exit(EXIT_FAILURE);                                            \
        }                                                                  \
    } while (0)

// ---------------------------------------------------------------- data

// CSR: row r's entries are colIndices[rowOffsets[r] .. rowOffsets[r + 1]),
// columns ascending, no duplicates. Offsets are int32 because cuSPARSE and
// the kernels index with int; every builder refuses nnz above INT32_MAX.
struct HostMatrix {
    char name[64];          // short id used in tables and the plot
    char description[192];  // one line for the reader
    int rows;
    int cols;
    int nnz;
    int* rowOffsets;  // rows + 1
    int* colIndices;  // nnz
    float* values;    // nnz
    float* x;         // cols
};

// What the CPU knows about one matrix before any GPU runs.
struct Reference {
    double* y;       // rows: y = A * x accumulated in double
    double* absSum;  // rows: sum |a_ij * x_j|, the scale of the rounding error
    double checksum;
};

// The tile kernel's schedule. A normal tile is rows [rowBegin, rowEnd) whose
// nonzeros fit one tile; a row too long for a tile gets chunkCount blocks,
// chunk = 0 .. chunkCount - 1, placed next to each other. chunk = -1 marks a
// normal tile. Built once per matrix on the host, like cuSPARSE's preprocess.
struct RowBlock {
    int rowBegin;
    int rowEnd;
    int chunk;
    int chunkCount;
};

struct TileSchedule {
    RowBlock* blocks;
    int blockCount;
    int longRows;     // rows split over several blocks
    int chunkBlocks;  // blocks spent on them
};

// Everything one input needs on the host.
struct Input {
    HostMatrix m;
    Reference ref;
    TileSchedule tiles;
    int subWarpLanes;
};

// Device side of one input, in one bag so a launcher takes one pointer.
struct DeviceMatrix {
    int rows;
    int cols;
    int nnz;
    int* rowOffsets;
    int* colIndices;
    float* values;
    float* x;
    float* y;  // rows + kGuardFloats
    RowBlock* blocks;
    int blockCount;
    float* chunkPartials;         // blockCount: one partial sum per chunk block
    unsigned int* chunkArrivals;  // blockCount: chunks finished, per long row
};

static void freeMatrix(HostMatrix* m) {
    free(m->rowOffsets);
    free(m->colIndices);
    free(m->values);
    free(m->x);
    m->rowOffsets = NULL;
    m->colIndices = NULL;
    m->values = NULL;
    m->x = NULL;
}

static void freeInput(Input* in) {
    freeMatrix(&in->m);
    free(in->ref.y);
    free(in->ref.absSum);
    free(in->tiles.blocks);
    in->ref.y = NULL;
    in->ref.absSum = NULL;
    in->tiles.blocks = NULL;
}

// ---------------------------------------------------------------- generator

// splitmix64: a 64-bit counter through a good mixer. Used both as a stream
// (the Kronecker edges) and as a hash of a position (values and x), so a
// value depends on where it is and not on the order it was made in.
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

static void fillX(HostMatrix* m) {
    for (int j = 0; j < m->cols; ++j) {
        m->x[j] = hashedValue(kSeedX, (uint64_t)j, 0);
    }
}

static bool allocMatrix(HostMatrix* m, int rows, int cols, long long nnz) {
    m->rows = rows;
    m->cols = cols;
    m->nnz = (int)nnz;
    m->rowOffsets = (int*)malloc(((size_t)rows + 1) * sizeof(int));
    m->colIndices = (int*)malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(int));
    m->values = (float*)malloc((size_t)(nnz > 0 ? nnz : 1) * sizeof(float));
    m->x = (float*)malloc((size_t)cols * sizeof(float));
    if (!m->rowOffsets || !m->colIndices || !m->values || !m->x) {
        freeMatrix(m);
        return false;
    }
    return true;
}

// The 7-point stencil on an n^3 grid, row = (z * n + y) * n + x. Columns are
// written in ascending order: z-1, y-1, x-1, self, x+1, y+1, z+1.
static bool makeStencil(int n, HostMatrix* m) {
    const long long rows = (long long)n * n * n;
    long long nnz = 0;
    nnz = rows * 7 - 6LL * n * n;  // each of the 6 faces loses one neighbour
    snprintf(m->name, sizeof(m->name), "stencil-%d", n);
    snprintf(m->description, sizeof(m->description),
             "3D 7-point stencil (the Laplacian's pattern) on a %d^3 grid", n);
    if (!allocMatrix(m, (int)rows, (int)rows, nnz)) {
        return false;
    }
    int e = 0;
    for (int z = 0; z < n; ++z) {
        for (int y = 0; y < n; ++y) {
            for (int x = 0; x < n; ++x) {
                const int row = (z * n + y) * n + x;
                m->rowOffsets[row] = e;
                const int candidates[7] = {
                    z > 0 ? row - n * n : -1, y > 0 ? row - n : -1,
                    x > 0 ? row - 1 : -1,     row,
                    x < n - 1 ? row + 1 : -1, y < n - 1 ? row + n : -1,
                    z < n - 1 ? row + n * n : -1};
                for (int k = 0; k < 7; ++k) {
                    if (candidates[k] >= 0) {
                        m->colIndices[e] = candidates[k];
                        m->values[e] =
                            hashedValue(kSeedValues, (uint64_t)row,
                                        (uint64_t)candidates[k]);
                        ++e;
                    }
                }
            }
        }
    }
    m->rowOffsets[rows] = e;
    fillX(m);
    return e == nnz;
}

// A Graph500 Kronecker graph: 16 * 2^scale edges, each placed by descending
// scale levels of a 2x2 initiator; vertex labels then shuffled (Graph500 does
// this so that high degree is not also low index). Self loops are dropped;
// the graph is made symmetric; a repeated edge is stored once (the pattern is
// a graph, and the same edge twice is still one edge). Values come from the
// position hash, so A is symmetric in pattern but not in value.
static bool makeKron(int scale, HostMatrix* m) {
    const int n = 1 << scale;
    const long long edges = (long long)kKronEdgeFactor << scale;
    snprintf(m->name, sizeof(m->name), "kron-%d", scale);
    snprintf(m->description, sizeof(m->description),
             "Graph500 Kronecker graph, scale %d, edge factor %d, symmetric, "
             "duplicates stored once",
             scale, kKronEdgeFactor);
    m->rowOffsets = NULL;
    m->colIndices = NULL;
    m->values = NULL;
    m->x = NULL;

    int* from = (int*)malloc((size_t)edges * sizeof(int));
    int* to = (int*)malloc((size_t)edges * sizeof(int));
    int* label = (int*)malloc((size_t)n * sizeof(int));
    long long* offsets = (long long*)calloc((size_t)n + 1, sizeof(long long));
    if (!from || !to || !label || !offsets) {
        free(from); free(to); free(label); free(offsets);
        return false;
    }
    uint64_t state = kSeedKron;
    const double ab = kKronA + kKronB;
    const double abc = ab + kKronC;
    for (long long e = 0; e < edges; ++e) {
        int u = 0;
        int v = 0;
        for (int bit = scale - 1; bit >= 0; --bit) {
            const double r = uniform01(&state);
            if (r >= kKronA && r < ab) {
                v |= 1 << bit;
            } else if (r >= ab && r < abc) {
                u |= 1 << bit;
            } else if (r >= abc) {
                u |= 1 << bit;
                v |= 1 << bit;
            }
        }
        from[e] = u;
        to[e] = v;
    }
    // Fisher-Yates shuffle of the labels, same stream, so still fixed.
    for (int i = 0; i < n; ++i) {
        label[i] = i;
    }
    for (int i = n - 1; i > 0; --i) {
        const int j = (int)(uniform01(&state) * (i + 1));
        const int t = label[i];
        label[i] = label[j];
        label[j] = t;
    }

    // Counting sort into CSR, both directions of every edge.
    for (long long e = 0; e < edges; ++e) {
        from[e] = label[from[e]];
        to[e] = label[to[e]];
        if (from[e] != to[e]) {
            ++offsets[from[e] + 1];
            ++offsets[to[e] + 1];
        }
    }
    free(label);
    for (int r = 0; r < n; ++r) {
        offsets[r + 1] += offsets[r];
    }
    const long long stored = offsets[n];
    int* scattered = (int*)malloc((size_t)(stored > 0 ? stored : 1) * sizeof(int));
    long long* cursor = (long long*)malloc((size_t)n * sizeof(long long));
    if (!scattered || !cursor) {
        free(from); free(to); free(offsets); free(scattered); free(cursor);
        return false;
    }
    memcpy(cursor, offsets, (size_t)n * sizeof(long long));
    for (long long e = 0; e < edges; ++e) {
        if (from[e] != to[e]) {
            scattered[cursor[from[e]]++] = to[e];
            scattered[cursor[to[e]]++] = from[e];
        }
    }
    free(from);
    free(to);

    // Sorting every row without a sort: walk the rows in ascending order and
    // append r to the row of each neighbour. That builds the transpose, whose
    // rows come out ascending; and because every edge went in both ways, the
    // transpose is the same multiset of entries.
    int* sorted = (int*)malloc((size_t)(stored > 0 ? stored : 1) * sizeof(int));
    if (!sorted) {
        free(scattered); free(cursor); free(offsets);
        return false;
    }
    memcpy(cursor, offsets, (size_t)n * sizeof(long long));
    for (int r = 0; r < n; ++r) {
        for (long long e = offsets[r]; e < offsets[r + 1]; ++e) {
            sorted[cursor[scattered[e]]++] = r;
        }
    }
    free(scattered);
    free(cursor);

    // Duplicates sit next to each other now; keep the first of each run.
    long long kept = 0;
    for (int r = 0; r < n; ++r) {
        const long long begin = offsets[r];
        const long long end = offsets[r + 1];
        offsets[r] = kept;
        for (long long e = begin; e < end; ++e) {
            if (e == begin || sorted[e] != sorted[e - 1]) {
                sorted[kept++] = sorted[e];
            }
        }
    }
    offsets[n] = kept;
    if (kept > INT32_MAX) {
        free(sorted); free(offsets);
        return false;
    }
    if (!allocMatrix(m, n, n, kept)) {
        free(sorted); free(offsets);
        return false;
    }
    for (int r = 0; r <= n; ++r) {
        m->rowOffsets[r] = (int)offsets[r];
    }
    for (int r = 0; r < n; ++r) {
        for (int e = m->rowOffsets[r]; e < m->rowOffsets[r + 1]; ++e) {
            m->colIndices[e] = sorted[e];
            m->values[e] = hashedValue(kSeedValues, (uint64_t)r, (uint64_t)sorted[e]);
        }
    }
    free(sorted);
    free(offsets);
    fillX(m);
    return true;
}

// ---------------------------------------------------------------- loader

// One stored entry while the file is read: the line it came from is kept so
// a duplicate can be reported by line.
struct Entry {
    int row;
    int col;
    float value;
    long long line;
};

static int compareEntries(const void* a, const void* b) {
    const Entry* p = (const Entry*)a;
    const Entry* q = (const Entry*)b;
    if (p->row != q->row) return p->row < q->row ? -1 : 1;
    if (p->col != q->col) return p->col < q->col ? -1 : 1;
    if (p->line != q->line) return p->line < q->line ? -1 : 1;
    return 0;
}

// Reads one line; returns 0 at end of file, -1 for a line longer than the
// buffer, 1 otherwise. The newline is removed.
static int readLine(FILE* f, char* line, int cap) {
    if (fgets(line, cap, f) == NULL) {
        return 0;
    }
    size_t len = strlen(line);
    if (len > 0 && line[len - 1] == '\n') {
        line[--len] = '\0';
        if (len > 0 && line[len - 1] == '\r') {
            line[--len] = '\0';
        }
        return 1;
    }
    if (len + 1 >= (size_t)cap && !feof(f)) {
        return -1;
    }
    return 1;
}

static bool isBlank(const char* s) {
    for (; *s; ++s) {
        if (*s != ' ' && *s != '\t') return false;
    }
    return true;
}

// Splits on blanks, in place. Returns the token count (up to cap).
static int splitTokens(char* s, char** tokens, int cap) {
    int count = 0;
    char* p = s;
    while (*p) {
        while (*p == ' ' || *p == '\t') ++p;
        if (!*p) break;
        if (count < cap) tokens[count] = p;
        ++count;
        while (*p && *p != ' ' && *p != '\t') ++p;
        if (*p) *p++ = '\0';
    }
    return count;
}

// A whole token as a decimal integer, or false.
static bool parseInteger(const char* s, long long* out) {
    if (*s == '\0') return false;
    char* end = NULL;
    errno = 0;
    const long long v = strtoll(s, &end, 10);
    if (*end != '\0' || errno == ERANGE) return false;
    *out = v;
    return true;
}

static bool parseReal(const char* s, double* out) {
    if (*s == '\0') return false;
    char* end = NULL;
    errno = 0;
    const double v = strtod(s, &end);
    if (*end != '\0') return false;
    *out = v;
    return true;
}

static void lowercase(char* s) {
    for (; *s; ++s) {
        if (*s >= 'A' && *s <= 'Z') *s = (char)(*s - 'A' + 'a');
    }
}

enum Field { kFieldReal, kFieldInteger, kFieldPattern };

// Reads a Matrix Market coordinate file into CSR. Refuses, naming the file
// and the line, at the first thing it cannot vouch for; a matrix with one
// bad entry is a wrong answer, not a warning. Duplicate entries are refused
// rather than summed: a file that lists (i, j) twice was most likely written
// wrong, and summing would hide that.
static bool loadMatrixMarket(const char* path, HostMatrix* m) {
    m->rowOffsets = NULL;
    m->colIndices = NULL;
    m->values = NULL;
    m->x = NULL;
    const char* base = strrchr(path, '/');
    base = base ? base + 1 : path;
    snprintf(m->name, sizeof(m->name), "%.*s", 40, base);
    char* dot = strrchr(m->name, '.');
    if (dot && dot != m->name) *dot = '\0';

    FILE* f = fopen(path, "r");
    if (f == NULL) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return false;
    }
    char line[kMaxLineLength];
    char* tokens[8];
    long long lineNo = 1;
    Entry* entries = NULL;

    // The banner.
    int got = readLine(f, line, sizeof(line));
    if (got == 0) {
        fprintf(stderr, "%s: line 1: empty file, expected a %%%%MatrixMarket banner\n", path);
        fclose(f);
        return false;
    }
    if (got < 0) {
        fprintf(stderr, "%s: line 1: line longer than %d characters\n", path, kMaxLineLength - 2);
        fclose(f);
        return false;
    }
    int count = splitTokens(line, tokens, 8);
    if (count < 1 || strcmp(tokens[0], "%%MatrixMarket") != 0) {
        fprintf(stderr, "%s: line 1: not a Matrix Market file (no %%%%MatrixMarket banner)\n", path);
        fclose(f);
        return false;
    }
    if (count != 5) {
        fprintf(stderr, "%s: line 1: banner needs 4 words after %%%%MatrixMarket, found %d\n",
                path, count - 1);
        fclose(f);
        return false;
    }
    for (int t = 1; t < 5; ++t) lowercase(tokens[t]);
    if (strcmp(tokens[1], "matrix") != 0) {
        fprintf(stderr, "%s: line 1: unsupported object '%s' (want matrix)\n", path, tokens[1]);
        fclose(f);
        return false;
    }
    if (strcmp(tokens[2], "coordinate") != 0) {
        fprintf(stderr, "%s: line 1: unsupported format '%s' (want coordinate)\n", path, tokens[2]);
        fclose(f);
        return false;
    }
    Field field;
    if (strcmp(tokens[3], "real") == 0) {
        field = kFieldReal;
    } else if (strcmp(tokens[3], "integer") == 0) {
        field = kFieldInteger;
    } else if (strcmp(tokens[3], "pattern") == 0) {
        field = kFieldPattern;
    } else {
        fprintf(stderr, "%s: line 1: unsupported field '%s' (want real, integer or pattern)\n",
                path, tokens[3]);
        fclose(f);
        return false;
    }
    bool symmetric;
    if (strcmp(tokens[4], "general") == 0) {
        symmetric = false;
    } else if (strcmp(tokens[4], "symmetric") == 0) {
        symmetric = true;
    } else {
        fprintf(stderr, "%s: line 1: unsupported symmetry '%s' (want general or symmetric)\n",
                path, tokens[4]);
        fclose(f);
        return false;
    }

    // The size line: the first line after the banner that is neither a
    // comment nor blank.
    for (;;) {
        ++lineNo;
        got = readLine(f, line, sizeof(line));
        if (got == 0) {
            fprintf(stderr, "%s: line %lld: end of file before the size line\n", path, lineNo);
            fclose(f);
            return false;
        }
        if (got < 0) {
            fprintf(stderr, "%s: line %lld: line longer than %d characters\n", path, lineNo,
                    kMaxLineLength - 2);
            fclose(f);
            return false;
        }
        if (line[0] != '%' && !isBlank(line)) break;
    }
    long long rows = 0, cols = 0, declared = 0;
    count = splitTokens(line, tokens, 8);
    if (count != 3 || !parseInteger(tokens[0], &rows) || !parseInteger(tokens[1], &cols) ||
        !parseInteger(tokens[2], &declared)) {
        fprintf(stderr, "%s: line %lld: bad size line, want ROWS COLS ENTRIES as integers\n",
                path, lineNo);
        fclose(f);
        return false;
    }
    if (rows < 1 || cols < 1 || declared < 1) {
        fprintf(stderr, "%s: line %lld: bad size line, rows, columns and entries must be at least 1\n",
                path, lineNo);
        fclose(f);
        return false;
    }
    // int32 indices and offsets: rows, columns and stored entries must fit.
    // A symmetric file stores each off-diagonal entry once and we store it
    // twice, so its entries count double.
    const long long storedBound = symmetric ? 2 * declared : declared;
    if (rows > INT32_MAX - 1 || cols > INT32_MAX - 1 || storedBound > INT32_MAX) {
        fprintf(stderr, "%s: line %lld: sizes too large for 32-bit indices "
                "(rows, columns and stored entries must be below 2^31)\n", path, lineNo);
        fclose(f);
        return false;
    }
    // rows * cols fits in 64 bits here, because both are below 2^31.
    if (declared > rows * cols) {
        fprintf(stderr, "%s: line %lld: %lld entries declared, more than the %lld x %lld cells\n",
                path, lineNo, declared, rows, cols);
        fclose(f);
        return false;
    }
    if (symmetric && rows != cols) {
        fprintf(stderr, "%s: line %lld: a symmetric matrix must be square, not %lld x %lld\n",
                path, lineNo, rows, cols);
        fclose(f);
        return false;
    }

    // The entries. The array grows as lines arrive rather than trusting the
    // declared count, so a lying header cannot make us allocate gigabytes.
    long long capacity = storedBound < 4096 ? storedBound : 4096;
    long long stored = 0;
    long long read = 0;
    entries = (Entry*)malloc((size_t)capacity * sizeof(Entry));
    const int wantTokens = field == kFieldPattern ? 2 : 3;
    const char* wantShape = field == kFieldPattern ? "ROW COL" : "ROW COL VALUE";
    bool ok = entries != NULL;
    while (ok) {
        ++lineNo;
        got = readLine(f, line, sizeof(line));
        if (got == 0) break;
        if (got < 0) {
            fprintf(stderr, "%s: line %lld: line longer than %d characters\n", path, lineNo,
                    kMaxLineLength - 2);
            ok = false;
            break;
        }
        if (line[0] == '%' || isBlank(line)) continue;
        if (read == declared) {
            fprintf(stderr, "%s: line %lld: more entries than the %lld declared\n", path, lineNo,
                    declared);
            ok = false;
            break;
        }
        count = splitTokens(line, tokens, 8);
        if (count != wantTokens) {
            fprintf(stderr, "%s: line %lld: want %s, found %d fields\n", path, lineNo, wantShape,
                    count);
            ok = false;
            break;
        }
        long long i = 0, j = 0;
        if (!parseInteger(tokens[0], &i) || !parseInteger(tokens[1], &j)) {
            fprintf(stderr, "%s: line %lld: index '%s' is not an integer\n", path, lineNo,
                    parseInteger(tokens[0], &i) ? tokens[1] : tokens[0]);
            ok = false;
            break;
        }
        if (i < 1 || i > rows || j < 1 || j > cols) {
            const bool rowBad = i < 1 || i > rows;
            fprintf(stderr, "%s: line %lld: %s index %lld outside 1..%lld (indices are 1-based)\n",
                    path, lineNo, rowBad ? "row" : "column", rowBad ? i : j,
                    rowBad ? rows : cols);
            ok = false;
            break;
        }
        if (symmetric && j > i) {
            fprintf(stderr, "%s: line %lld: entry (%lld, %lld) above the diagonal; a symmetric "
                    "file stores the lower triangle only\n", path, lineNo, i, j);
            ok = false;
            break;
        }
        float value = 0.0f;
        if (field == kFieldPattern) {
            // All-ones values would hide a wrong column index, so a pattern
            // file's entries take values from the position hash instead.
            value = hashedValue(kSeedValues, (uint64_t)(i - 1), (uint64_t)(j - 1));
        } else if (field == kFieldInteger) {
            long long v = 0;
            if (!parseInteger(tokens[2], &v)) {
                fprintf(stderr, "%s: line %lld: value '%s' is not an integer\n", path, lineNo,
                        tokens[2]);
                ok = false;
                break;
            }
            if (v > kMaxExactInteger || v < -kMaxExactInteger) {
                fprintf(stderr, "%s: line %lld: integer value %lld is not exact in fp32 "
                        "(magnitude above 2^24)\n", path, lineNo, v);
                ok = false;
                break;
            }
            value = (float)v;
        } else {
            double v = 0.0;
            if (!parseReal(tokens[2], &v)) {
                fprintf(stderr, "%s: line %lld: value '%s' is not a number\n", path, lineNo,
                        tokens[2]);
                ok = false;
                break;
            }
            if (!(fabs(v) <= 3.4028234663852886e38)) {
                fprintf(stderr, "%s: line %lld: value '%s' is not a finite fp32 number\n", path,
                        lineNo, tokens[2]);
                ok = false;
                break;
            }
            value = (float)v;
        }
        ++read;
        const int copies = (symmetric && i != j) ? 2 : 1;
        if (stored + copies > capacity) {
            long long grown = capacity * 2;
            if (grown > storedBound) grown = storedBound;
            Entry* bigger = (Entry*)realloc(entries, (size_t)grown * sizeof(Entry));
            if (bigger == NULL) {
                fprintf(stderr, "%s: line %lld: out of host memory\n", path, lineNo);
                ok = false;
                break;
            }
            entries = bigger;
            capacity = grown;
        }
        entries[stored].row = (int)(i - 1);
        entries[stored].col = (int)(j - 1);
        entries[stored].value = value;
        entries[stored].line = lineNo;
        ++stored;
        if (copies == 2) {
            entries[stored].row = (int)(j - 1);
            entries[stored].col = (int)(i - 1);
            entries[stored].value = value;
            entries[stored].line = lineNo;
            ++stored;
        }
    }
    fclose(f);
    if (ok && entries == NULL) {
        fprintf(stderr, "%s: out of host memory\n", path);
        ok = false;
    }
    if (ok && read < declared) {
        fprintf(stderr, "%s: line %lld: end of file after %lld of %lld declared entries\n", path,
                lineNo, read, declared);
        ok = false;
    }
    if (!ok) {
        free(entries);
        return false;
    }

    qsort(entries, (size_t)stored, sizeof(Entry), compareEntries);
    // The first problem in file order is the duplicate whose second copy
    // comes earliest; within a run of equal (row, col) the entries are
    // sorted by line, so that copy is the run's second element.
    long long dupAt = -1;
    for (long long e = 1; e < stored; ++e) {
        if (entries[e].row == entries[e - 1].row && entries[e].col == entries[e - 1].col &&
            (e < 2 || entries[e - 2].row != entries[e].row || entries[e - 2].col != entries[e].col)) {
            if (dupAt < 0 || entries[e].line < entries[dupAt].line) dupAt = e;
        }
    }
    if (dupAt >= 0) {
        const Entry* d = &entries[dupAt];
        // Report the pair as the file wrote it (lower triangle for symmetric).
        const int fr = symmetric && d->col > d->row ? d->col : d->row;
        const int fc = symmetric && d->col > d->row ? d->row : d->col;
        fprintf(stderr, "%s: line %lld: duplicate entry (%d, %d), first given on line %lld; "
                "duplicates are refused, not summed\n", path, d->line, fr + 1, fc + 1,
                entries[dupAt - 1].line);
        free(entries);
        return false;
    }

    snprintf(m->description, sizeof(m->description),
             "Matrix Market file %.100s (%s %s)", path,
             field == kFieldReal ? "real" : field == kFieldInteger ? "integer" : "pattern",
             symmetric ? "symmetric, both triangles stored" : "general");
    if (!allocMatrix(m, (int)rows, (int)cols, stored)) {
        fprintf(stderr, "%s: out of host memory\n", path);
        free(entries);
        return false;
    }
    memset(m->rowOffsets, 0, ((size_t)rows + 1) * sizeof(int));
    for (long long e = 0; e < stored; ++e) {
        ++m->rowOffsets[entries[e].row + 1];
        m->colIndices[e] = entries[e].col;
        m->values[e] = entries[e].value;
    }
    for (long long r = 0; r < rows; ++r) {
        m->rowOffsets[r + 1] += m->rowOffsets[r];
    }
    free(entries);
    fillX(m);
    return true;
}

// ---------------------------------------------------------------- CPU reference

// The judge: y = A * x in double, in row order, plus each row's sum of
// |a_ij * x_j|, which bounds how far any float summation order may land.
static bool computeReference(const HostMatrix* m, Reference* ref) {
    ref->y = (double*)malloc((size_t)m->rows * sizeof(double));
    ref->absSum = (double*)malloc((size_t)m->rows * sizeof(double));
    if (!ref->y || !ref->absSum) {
        return false;
    }
    ref->checksum = 0.0;
    for (int r = 0; r < m->rows; ++r) {
        double sum = 0.0;
        double absSum = 0.0;
        for (int e = m->rowOffsets[r]; e < m->rowOffsets[r + 1]; ++e) {
            const double p = (double)m->values[e] * (double)m->x[m->colIndices[e]];
            sum += p;
            absSum += fabs(p);
        }
        ref->y[r] = sum;
        ref->absSum[r] = absSum;
        ref->checksum += sum;
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
static bool checkResult(const char* variant, const HostMatrix* m, const Reference* ref,
                        const float* got, const char* when, bool quiet) {
    int firstBad = -1;
    int badRows = 0;
    double gotSum = 0.0;
    double tolSum = 0.0;
    for (int r = 0; r < m->rows; ++r) {
        const double tol = rowTolerance(m->rowOffsets[r + 1] - m->rowOffsets[r], ref->absSum[r]);
        tolSum += tol;
        gotSum += (double)got[r];
        if (rowIsWrong(got[r], ref->y[r], tol)) {
            if (firstBad < 0) firstBad = r;
            ++badRows;
        }
    }
    bool ok = true;
    if (firstBad >= 0) {
        fprintf(stderr, "%s on %s%s: %d of %d rows wrong; first is row %d (length %d): "
                "got %.9g, want %.9g, tolerance %.3g\n", variant, m->name, when, badRows, m->rows,
                firstBad, m->rowOffsets[firstBad + 1] - m->rowOffsets[firstBad],
                (double)got[firstBad], ref->y[firstBad],
                rowTolerance(m->rowOffsets[firstBad + 1] - m->rowOffsets[firstBad],
                             ref->absSum[firstBad]));
        ok = false;
    }
    // The second check: the total of y against the reference's total.
    if (!(fabs(gotSum - ref->checksum) <= tolSum)) {
        fprintf(stderr, "%s on %s%s: checksum of y is %.9g, want %.9g (tolerance %.3g)\n",
                variant, m->name, when, gotSum, ref->checksum, tolSum);
        ok = false;
    }
    int guardHit = -1;
    for (int g = 0; g < kGuardFloats && guardHit < 0; ++g) {
        uint32_t bits = 0;
        memcpy(&bits, &got[m->rows + g], sizeof(bits));
        if (bits != 0xffffffffu) guardHit = g;
    }
    if (guardHit >= 0) {
        fprintf(stderr, "%s on %s%s: wrote y[%d], past the last row\n", variant, m->name, when,
                m->rows + guardHit);
        ok = false;
    }
    if (ok && !quiet) {
        printf("  %-18s matches the CPU on all %d rows, checksum matches, nothing written past y\n",
               variant, m->rows);
    }
    return ok;
}

// ---------------------------------------------------------------- host analysis

static int compareInts(const void* a, const void* b) {
    const int p = *(const int*)a;
    const int q = *(const int*)b;
    return (p > q) - (p < q);
}

static int rowLength(const HostMatrix* m, long long r) {
    return m->rowOffsets[r + 1] - m->rowOffsets[r];
}

// snippet: lanes-rule
// Lanes per row for the sub-warp kernel: the smallest power of two that
// covers the mean row length, between 2 and 32 (the rule of Bell and
// Garland's CUSP library). The mean, not the median, because the lanes must
// pay for the nonzeros, and on a skewed matrix the nonzeros sit in the long
// rows that the median does not see.
static int chooseSubWarpLanes(const HostMatrix* m) {
    const double mean = (double)m->nnz / m->rows;
    int lanes = 2;
    while (lanes < kWarpSize && lanes < mean) {
        lanes *= 2;
    }
    return lanes;
}
// end snippet

// Lanes the tile kernel's reduction gives each row of a tile of `rows` rows:
// the largest power of two up to a warp such that every row gets its lanes
// from the block's threads. Shared by the host schedule and the kernel, so
// the two cannot disagree.
__host__ __device__ static inline int tileReduceLanes(int rows) {
    int lanes = 32;
    while (lanes > 1 && lanes * rows > kThreadsPerBlock) {
        lanes /= 2;
    }
    return lanes;
}

// Lane slots a mapping with `lanes` lanes per row issues: a warp holds
// 32 / lanes consecutive rows and runs until its slowest row is done, each
// step costing all 32 lanes. lanes = 1 is thread per row, 32 warp per row.
static long long laneSlots(const HostMatrix* m, int lanes) {
    const int rowsPerWarp = kWarpSize / lanes;
    long long slots = 0;
    for (long long first = 0; first < m->rows; first += rowsPerWarp) {
        int steps = 0;
        for (long long r = first; r < first + rowsPerWarp && r < m->rows; ++r) {
            const int s = (rowLength(m, r) + lanes - 1) / lanes;
            if (s > steps) steps = s;
        }
        slots += (long long)kWarpSize * steps;
    }
    return slots;
}

// The tile schedule. Rows are packed greedily into tiles; a tile closes when
// the next row would overflow its nonzeros, its 256 rows, or make the
// longest row need more than kTileMaxReduceSteps steps of the reduction.
// A row longer than a whole tile is cut into tile-sized chunks, one block
// each, and the chunks meet in one of them (see the kernel).
static bool buildTileSchedule(const HostMatrix* m, TileSchedule* t) {
    // Upper bound on blocks: one per row plus one per full tile of nonzeros.
    const long long bound = (long long)m->rows + m->nnz / kTileNnz + 1;
    t->blocks = (RowBlock*)malloc((size_t)bound * sizeof(RowBlock));
    if (!t->blocks) return false;
    t->blockCount = 0;
    t->longRows = 0;
    t->chunkBlocks = 0;
    int open = -1;  // first row of the open tile, -1 when none
    int openRows = 0;
    int openNnz = 0;
    int openMax = 0;
    for (int r = 0; r <= m->rows; ++r) {
        const int len = r < m->rows ? rowLength(m, r) : 0;
        bool close = r == m->rows || len > kTileNnz;
        if (!close && open >= 0) {
            const int rows = openRows + 1;
            const int longest = len > openMax ? len : openMax;
            const int lanes = tileReduceLanes(rows);
            close = openNnz + len > kTileNnz || rows > kTileMaxRows ||
                    (longest + lanes - 1) / lanes > kTileMaxReduceSteps;
        }
        if (close && open >= 0) {
            RowBlock b = {open, r, -1, 0};
            t->blocks[t->blockCount++] = b;
            open = -1;
        }
        if (r == m->rows) break;
        if (len > kTileNnz) {
            const int chunks = (len + kTileNnz - 1) / kTileNnz;
            for (int c = 0; c < chunks; ++c) {
                RowBlock b = {r, r + 1, c, chunks};
                t->blocks[t->blockCount++] = b;
            }
            ++t->longRows;
            t->chunkBlocks += chunks;
            continue;
        }
        if (open < 0) {
            open = r;
            openRows = 0;
            openNnz = 0;
            openMax = 0;
        }
        ++openRows;
        openNnz += len;
        if (len > openMax) openMax = len;
    }
    return true;
}

// Lane slots of the tile kernel's load phase: each block's nonzeros in
// steps of the whole block. Its reduction reads shared memory and is not
// counted; that is where the "nonzeros per slot" figure flatters it.
static long long tileSlots(const HostMatrix* m, const TileSchedule* t) {
    long long slots = 0;
    for (int b = 0; b < t->blockCount; ++b) {
        const RowBlock* rb = &t->blocks[b];
        long long count = (long long)m->rowOffsets[rb->rowEnd] - m->rowOffsets[rb->rowBegin];
        if (rb->chunk >= 0) {
            const long long rest = count - (long long)rb->chunk * kTileNnz;
            count = rest < kTileNnz ? rest : kTileNnz;
        }
        slots += (count + kThreadsPerBlock - 1) / kThreadsPerBlock * kThreadsPerBlock;
    }
    return slots;
}

// Bytes one SpMV must move at least: row offsets, column indices and values
// once, x once per column, y once per row. Reads of x that miss the caches
// again are not counted, so GB/s by this model is a lower bound.
static double compulsoryBytes(const HostMatrix* m) {
    return ((double)m->rows + 1) * 4 + (double)m->nnz * 8 + (double)m->cols * 4 +
           (double)m->rows * 4;
}

// The same, with x read once per nonzero: what SpMV would move if no read of
// x ever hit a cache. The truth lies between the two.
static double uncachedBytes(const HostMatrix* m) {
    return ((double)m->rows + 1) * 4 + (double)m->nnz * 12 + (double)m->rows * 4;
}

static const int kKernelCount = 4;
static const char* const kKernelNames[kKernelCount] = {"thread-per-row", "warp-per-row",
                                                       "sub-warp", "nnz-tile"};

static void printAnalysis(const Input* in, int index, int count) {
    const HostMatrix* m = &in->m;
    printf("\nInput %d of %d: %s, %s\n", index + 1, count, m->name, m->description);
    int* lengths = (int*)malloc((size_t)m->rows * sizeof(int));
    if (!lengths) {
        printf("  (no host memory for the row statistics)\n");
        return;
    }
    int empty = 0;
    int longest = 0;
    for (int r = 0; r < m->rows; ++r) {
        lengths[r] = rowLength(m, r);
        if (lengths[r] == 0) ++empty;
        if (lengths[r] > lengths[longest]) longest = r;
    }
    const int maxLen = lengths[longest];
    qsort(lengths, (size_t)m->rows, sizeof(int), compareInts);
    printf("  %d rows, %d columns, %d nonzeros\n", m->rows, m->cols, m->nnz);
    printf("  row length: min %d, median %d, mean %.2f, max %d (row %d); %d empty rows\n",
           lengths[0], lengths[m->rows / 2], (double)m->nnz / m->rows, maxLen, longest, empty);
    free(lengths);
    printf("  bytes per SpMV: %.1f MB compulsory (offsets, columns, values, x once, y), "
           "%.1f MB if x were read once per nonzero\n",
           compulsoryBytes(m) / 1e6, uncachedBytes(m) / 1e6);
    printf("  lanes-per-row rule: mean %.2f -> sub-warp with %d lanes per row\n",
           (double)m->nnz / m->rows, in->subWarpLanes);
    printf("  nnz-tile: %d blocks of at most %d nonzeros and %d rows; rows longer than a tile: "
           "%d, cut into %d chunk blocks\n", in->tiles.blockCount, kTileNnz, kTileMaxRows,
           in->tiles.longRows, in->tiles.chunkBlocks);
    printf("  lane slots issued, counted from the row lengths:\n");
    printf("    %-22s %14s %16s\n", "mapping", "lane slots", "nonzeros/slot");
    const long long slots[kKernelCount] = {laneSlots(m, 1), laneSlots(m, kWarpSize),
                                           laneSlots(m, in->subWarpLanes),
                                           tileSlots(m, &in->tiles)};
    for (int k = 0; k < kKernelCount; ++k) {
        char label[48];
        if (k == 2) {
            snprintf(label, sizeof(label), "sub-warp (%d lanes)", in->subWarpLanes);
        } else {
            snprintf(label, sizeof(label), "%s", kKernelNames[k]);
        }
        printf("    %-22s %14lld %15.1f%%\n", label, slots[k],
               slots[k] > 0 ? 100.0 * m->nnz / (double)slots[k] : 0.0);
    }
    printf("  CPU reference (double): checksum sum(y) = %.9e\n", in->ref.checksum);
}

// ---------------------------------------------------------------- kernels

// 1. One thread per row: what everybody writes first, and correct.
// The loop bound is per lane, so a warp runs as long as its longest row while
// the lanes with shorter rows sit idle; and 32 lanes walk 32 different rows,
// so a warp's loads of colIndices and values touch up to 32 separate places.
// Launch: gridDim.x * blockDim.x >= rows.
// snippet: thread-per-row
__global__ void spmvThreadPerRow(int rows, const int* __restrict__ rowOffsets,
                                 const int* __restrict__ colIndices,
                                 const float* __restrict__ values,
                                 const float* __restrict__ x, float* __restrict__ y) {
    const long long row = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (row < rows) {
        float sum = 0.0f;
        for (int e = rowOffsets[row]; e < rowOffsets[row + 1]; ++e) {
            sum += values[e] * x[colIndices[e]];
        }
        y[row] = sum;
    }
}
// end snippet

// 2. One warp per row: the 32 lanes stride through one row together, so each
// load instruction reads 32 consecutive entries, and a shuffle ladder adds
// the 32 partial sums. A row of 3 entries leaves 29 lanes with nothing to do.
// The shuffles sit outside the guard so every lane reaches them, which is
// what the full mask promises; the guard is warp uniform anyway.
// Launch: blockDim.x a multiple of 32; gridDim.x * blockDim.x >= 32 * rows.
// snippet: warp-per-row
__global__ void spmvWarpPerRow(int rows, const int* __restrict__ rowOffsets,
                               const int* __restrict__ colIndices,
                               const float* __restrict__ values,
                               const float* __restrict__ x, float* __restrict__ y) {
    const long long thread = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long row = thread / kWarpSize;
    const int lane = threadIdx.x % kWarpSize;
    float sum = 0.0f;
    if (row < rows) {
        for (int e = rowOffsets[row] + lane; e < rowOffsets[row + 1]; e += kWarpSize) {
            sum += values[e] * x[colIndices[e]];
        }
    }
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
        sum += __shfl_down_sync(0xffffffffu, sum, offset);
    }
    if (row < rows && lane == 0) {
        y[row] = sum;
    }
}
// end snippet

// 3. Lanes lanes per row, lanes a power of two below 32: a warp serves
// 32 / lanes rows at once. When lanes is near the row length, few lanes idle
// and the warp still reads a contiguous run of entries (its rows are
// neighbours in memory). The width argument of __shfl_down_sync keeps each
// group's ladder inside the group.
// Launch: blockDim.x a multiple of 32; gridDim.x * blockDim.x >= Lanes * rows.
// snippet: sub-warp
template <int Lanes>
__global__ void spmvSubWarp(int rows, const int* __restrict__ rowOffsets,
                            const int* __restrict__ colIndices,
                            const float* __restrict__ values,
                            const float* __restrict__ x, float* __restrict__ y) {
    static_assert(Lanes >= 2 && Lanes <= 32 && (Lanes & (Lanes - 1)) == 0,
                  "lanes per row is a power of two from 2 to 32");
    const long long thread = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    const long long row = thread / Lanes;
    const int lane = threadIdx.x % Lanes;
    float sum = 0.0f;
    if (row < rows) {
        for (int e = rowOffsets[row] + lane; e < rowOffsets[row + 1]; e += Lanes) {
            sum += values[e] * x[colIndices[e]];
        }
    }
    for (int offset = Lanes / 2; offset > 0; offset /= 2) {
        sum += __shfl_down_sync(0xffffffffu, sum, offset, Lanes);
    }
    if (row < rows && lane == 0) {
        y[row] = sum;
    }
}
// end snippet

// Adds v over the 32 lanes of a warp; lane 0 holds the total.
__device__ static inline float warpSum(float v) {
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2) {
        v += __shfl_down_sync(0xffffffffu, v, offset);
    }
    return v;
}

// 4. Nonzero tiles. The host cut the rows into tiles of at most 2048
// nonzeros (and 256 rows), so every block has about the same bytes to move
// whatever the row lengths are. A tile is worked in two phases:
//   load:   the block streams the tile's column indices and values with
//           16-byte loads (every lane busy, every load full width), gathers
//           x, and parks the products in shared memory;
//   reduce: each row of the tile gets `lanes` threads that add its products
//           out of shared memory, where short rows cost little.
// A row longer than a tile is cut into chunks, one block each. Each chunk
// block writes its partial sum to chunkPartials, and the last of the row's
// chunks to arrive (counted with an atomic) adds them and writes y. So y is
// written exactly once, by a plain store, and nothing has to zero it first.
// The arrival counter is reset by that last block for the next launch.
// Launch: blockDim.x == kThreadsPerBlock; gridDim.x == the schedule's block
// count; chunkArrivals all zero before the first launch.
// snippet: nnz-tile
__global__ void __launch_bounds__(kThreadsPerBlock)
spmvNnzTile(const RowBlock* __restrict__ blocks, const int* __restrict__ rowOffsets,
            const int* __restrict__ colIndices, const float* __restrict__ values,
            const float* __restrict__ x, float* __restrict__ y,
            float* __restrict__ chunkPartials, unsigned int* __restrict__ chunkArrivals) {
    // 4 extra floats: the tile is indexed from the 16-byte boundary at or
    // below its first nonzero, so it may start up to 3 places in.
    __shared__ __align__(16) float products[TILE_NNZ + 4];
    __shared__ float warpTotals[kThreadsPerBlock / kWarpSize];
    __shared__ int lastChunk;
    const RowBlock block = blocks[blockIdx.x];
    const int tid = threadIdx.x;

    if (block.chunk < 0) {
        const int first = rowOffsets[block.rowBegin];
        const int last = rowOffsets[block.rowEnd];
        const int base = first & ~3;            // 16-byte boundary at or below first
        int vecBegin = (first + 3) & ~3;        // first 16-byte boundary in the tile
        if (vecBegin > last) vecBegin = last;
        int vecEnd = last & ~3;                 // last 16-byte boundary in the tile
        if (vecEnd < vecBegin) vecEnd = vecBegin;
        // Up to 3 entries before the first boundary and after the last one.
        for (int e = first + tid; e < vecBegin; e += blockDim.x) {
            products[e - base] = values[e] * x[colIndices[e]];
        }
        for (int e = vecEnd + tid; e < last; e += blockDim.x) {
            products[e - base] = values[e] * x[colIndices[e]];
        }
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
            for (int k = rowOffsets[row] - base + lane; k < rowLast; k += lanes) {
                sum += products[k];
            }
        }
        for (int offset = lanes / 2; offset > 0; offset /= 2) {
            sum += __shfl_down_sync(0xffffffffu, sum, offset, lanes);
        }
        if (group < rows && lane == 0) {
            y[block.rowBegin + group] = sum;
        }
    } else {
        const int row = block.rowBegin;
        const int begin = rowOffsets[row] + block.chunk * kTileNnz;
        const int rowEnd = rowOffsets[row + 1];
        const int end = begin + kTileNnz < rowEnd ? begin + kTileNnz : rowEnd;
        float sum = 0.0f;
        for (int e = begin + tid; e < end; e += blockDim.x) {
            sum += values[e] * x[colIndices[e]];
        }
        sum = warpSum(sum);
        if (tid % kWarpSize == 0) warpTotals[tid / kWarpSize] = sum;
        __syncthreads();
        if (tid < kWarpSize) {
            sum = warpSum(tid < kThreadsPerBlock / kWarpSize ? warpTotals[tid] : 0.0f);
        }
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
            for (int c = tid; c < block.chunkCount; c += kWarpSize) {
                total += __ldcg(&chunkPartials[firstBlock + c]);  // from L2, not a stale L1
            }
            total = warpSum(total);
            if (tid == 0) {
                y[row] = total;
                chunkArrivals[firstBlock] = 0u;
            }
        }
    }
}
// end snippet

// ---------------------------------------------------------------- timing and launchers

// Times a launch with CUDA events: warm up this launch (lazy loading makes
// the first launch of every kernel pay for loading it), then the mean of
// kTimedRuns back-to-back launches. No host work inside the window.
static float timeMs(void (*launch)(const void* ctx), const void* ctx) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < kWarmupRuns; ++i) {
        launch(ctx);
    }
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaGetLastError());
    CUDA_CHECK(cudaEventRecord(start));
    for (int i = 0; i < kTimedRuns; ++i) {
        launch(ctx);
    }
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaGetLastError());
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms / kTimedRuns;
}

struct KernelRun {
    const DeviceMatrix* d;
    int kernel;  // index into kKernelNames
    int lanes;   // sub-warp only
};

static int blocksFor(long long threads) {
    return (int)((threads + kThreadsPerBlock - 1) / kThreadsPerBlock);
}

static void launchKernel(const void* ctx) {
    const KernelRun* run = (const KernelRun*)ctx;
    const DeviceMatrix* d = run->d;
    const long long rows = d->rows;
    switch (run->kernel) {
    case 0:
        spmvThreadPerRow<<<blocksFor(rows), kThreadsPerBlock>>>(
            d->rows, d->rowOffsets, d->colIndices, d->values, d->x, d->y);
        break;
    case 1:
        spmvWarpPerRow<<<blocksFor(rows * kWarpSize), kThreadsPerBlock>>>(
            d->rows, d->rowOffsets, d->colIndices, d->values, d->x, d->y);
        break;
    case 2: {
        const int grid = blocksFor(rows * run->lanes);
        if (run->lanes == 2) {
            spmvSubWarp<2><<<grid, kThreadsPerBlock>>>(d->rows, d->rowOffsets, d->colIndices,
                                                       d->values, d->x, d->y);
        } else if (run->lanes == 4) {
            spmvSubWarp<4><<<grid, kThreadsPerBlock>>>(d->rows, d->rowOffsets, d->colIndices,
                                                       d->values, d->x, d->y);
        } else if (run->lanes == 8) {
            spmvSubWarp<8><<<grid, kThreadsPerBlock>>>(d->rows, d->rowOffsets, d->colIndices,
                                                       d->values, d->x, d->y);
        } else if (run->lanes == 16) {
            spmvSubWarp<16><<<grid, kThreadsPerBlock>>>(d->rows, d->rowOffsets, d->colIndices,
                                                        d->values, d->x, d->y);
        } else {
            spmvSubWarp<32><<<grid, kThreadsPerBlock>>>(d->rows, d->rowOffsets, d->colIndices,
                                                        d->values, d->x, d->y);
        }
        break;
    }
    default:
        spmvNnzTile<<<d->blockCount, kThreadsPerBlock>>>(d->blocks, d->rowOffsets, d->colIndices,
                                                         d->values, d->x, d->y,
                                                         d->chunkPartials, d->chunkArrivals);
        break;
    }
    CUDA_CHECK(cudaGetLastError());
}

static const int kCusparseAlgs = 2;
static const char* const kCusparseNames[kCusparseAlgs] = {"cuSPARSE CSR_ALG1",
                                                          "cuSPARSE CSR_ALG2"};

// One cuSPARSE configuration. Each algorithm gets its own matrix descriptor,
// because cusparseSpMV_preprocess leaves its analysis on the descriptor.
struct CusparseRun {
    cusparseHandle_t handle;
    cusparseSpMatDescr_t matrix;
    cusparseDnVecDescr_t x;
    cusparseDnVecDescr_t y;
    cusparseSpMVAlg_t alg;
    void* buffer;
};

static void launchCusparse(const void* ctx) {
    const CusparseRun* run = (const CusparseRun*)ctx;
    const float alpha = 1.0f;
    const float beta = 0.0f;
    CUSPARSE_CHECK(cusparseSpMV(run->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                run->matrix, run->x, &beta, run->y, CUDA_R_32F, run->alg,
                                run->buffer));
}

struct CopyRun {
    void* dst;
    const void* src;
    size_t bytes;
};

static void launchCopy(const void* ctx) {
    const CopyRun* run = (const CopyRun*)ctx;
    CUDA_CHECK(cudaMemcpyAsync(run->dst, run->src, run->bytes, cudaMemcpyDeviceToDevice));
}

// ---------------------------------------------------------------- GPU part

static void uploadInput(const Input* in, DeviceMatrix* d) {
    const HostMatrix* m = &in->m;
    d->rows = m->rows;
    d->cols = m->cols;
    d->nnz = m->nnz;
    d->blockCount = in->tiles.blockCount;
    CUDA_CHECK(cudaMalloc(&d->rowOffsets, ((size_t)m->rows + 1) * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d->colIndices, (size_t)m->nnz * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d->values, (size_t)m->nnz * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d->x, (size_t)m->cols * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d->y, ((size_t)m->rows + kGuardFloats) * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d->blocks, (size_t)d->blockCount * sizeof(RowBlock)));
    CUDA_CHECK(cudaMalloc(&d->chunkPartials, (size_t)d->blockCount * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d->chunkArrivals, (size_t)d->blockCount * sizeof(unsigned int)));
    CUDA_CHECK(cudaMemcpy(d->rowOffsets, m->rowOffsets, ((size_t)m->rows + 1) * sizeof(int),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->colIndices, m->colIndices, (size_t)m->nnz * sizeof(int),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->values, m->values, (size_t)m->nnz * sizeof(float),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->x, m->x, (size_t)m->cols * sizeof(float), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->blocks, in->tiles.blocks, (size_t)d->blockCount * sizeof(RowBlock),
                          cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemset(d->chunkArrivals, 0, (size_t)d->blockCount * sizeof(unsigned int)));
}

static void freeDevice(DeviceMatrix* d) {
    CUDA_CHECK(cudaFree(d->rowOffsets));
    CUDA_CHECK(cudaFree(d->colIndices));
    CUDA_CHECK(cudaFree(d->values));
    CUDA_CHECK(cudaFree(d->x));
    CUDA_CHECK(cudaFree(d->y));
    CUDA_CHECK(cudaFree(d->blocks));
    CUDA_CHECK(cudaFree(d->chunkPartials));
    CUDA_CHECK(cudaFree(d->chunkArrivals));
}

// Poisons y and its guard (0xFF bytes are NaN as floats), so a row a kernel
// never writes fails the check instead of passing on a stale right answer.
static void poisonY(const DeviceMatrix* d) {
    CUDA_CHECK(cudaMemset(d->y, 0xff, ((size_t)d->rows + kGuardFloats) * sizeof(float)));
}

static void fetchY(const DeviceMatrix* d, float* hostY) {
    CUDA_CHECK(cudaMemcpy(hostY, d->y, ((size_t)d->rows + kGuardFloats) * sizeof(float),
                          cudaMemcpyDeviceToHost));
}

// Per input: the geomean and headline inputs.
struct InputResult {
    double bestLessonMs;
    double bestCusparseMs;
    bool isStencil;
};

// Checks, times and reports every variant on one input. Returns failures.
static int runInput(const Input* in, cusparseHandle_t handle, double copyGBs,
                    InputResult* result) {
    const HostMatrix* m = &in->m;
    int failures = 0;
    DeviceMatrix d;
    uploadInput(in, &d);
    float* hostY = (float*)malloc(((size_t)m->rows + kGuardFloats) * sizeof(float));
    if (!hostY) {
        fprintf(stderr, "out of host memory\n");
        freeDevice(&d);
        return 1;
    }

    // cuSPARSE setup, outside every timed window: descriptors, the work
    // buffer, and preprocess (the analysis the library may do once per
    // matrix, as the tile schedule is built once on the host).
    CusparseRun sparse[kCusparseAlgs];
    const cusparseSpMVAlg_t algs[kCusparseAlgs] = {CUSPARSE_SPMV_CSR_ALG1, CUSPARSE_SPMV_CSR_ALG2};
    const float alpha = 1.0f;
    const float beta = 0.0f;
    for (int a = 0; a < kCusparseAlgs; ++a) {
        CusparseRun* s = &sparse[a];
        s->handle = handle;
        s->alg = algs[a];
        CUSPARSE_CHECK(cusparseCreateCsr(&s->matrix, m->rows, m->cols, m->nnz, d.rowOffsets,
                                         d.colIndices, d.values, CUSPARSE_INDEX_32I,
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO,
                                         CUDA_R_32F));
        CUSPARSE_CHECK(cusparseCreateDnVec(&s->x, m->cols, d.x, CUDA_R_32F));
        CUSPARSE_CHECK(cusparseCreateDnVec(&s->y, m->rows, d.y, CUDA_R_32F));
        size_t bufferBytes = 0;
        CUSPARSE_CHECK(cusparseSpMV_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                               s->matrix, s->x, &beta, s->y, CUDA_R_32F, s->alg,
                                               &bufferBytes));
        s->buffer = NULL;
        CUDA_CHECK(cudaMalloc(&s->buffer, bufferBytes > 0 ? bufferBytes : 1));
        CUSPARSE_CHECK(cusparseSpMV_preprocess(handle, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                               s->matrix, s->x, &beta, s->y, CUDA_R_32F, s->alg,
                                               s->buffer));
    }

    // Correctness first: every variant on a poisoned y, checked before it is
    // timed. A variant that fails is reported and not timed.
    printf("\nGPU, %s:\n", m->name);
    const int variants = kKernelCount + kCusparseAlgs;
    bool passed[kKernelCount + kCusparseAlgs];
    double ms[kKernelCount + kCusparseAlgs];
    KernelRun runs[kKernelCount];
    for (int v = 0; v < variants; ++v) {
        const char* name = v < kKernelCount ? kKernelNames[v] : kCusparseNames[v - kKernelCount];
        poisonY(&d);
        if (v < kKernelCount) {
            runs[v].d = &d;
            runs[v].kernel = v;
            runs[v].lanes = in->subWarpLanes;
            launchKernel(&runs[v]);
        } else {
            launchCusparse(&sparse[v - kKernelCount]);
        }
        CUDA_CHECK(cudaDeviceSynchronize());
        fetchY(&d, hostY);
        passed[v] = checkResult(name, m, &in->ref, hostY, "", false);
        if (!passed[v]) ++failures;
        ms[v] = 0.0;
    }

    // Then timing, and the result of the last timed launch checked again: a
    // kernel that keeps state between launches (the tile kernel's arrival
    // counters) shows a fault only on its second launch.
    int recheckFailures = 0;
    for (int v = 0; v < variants; ++v) {
        if (!passed[v]) continue;
        const char* name = v < kKernelCount ? kKernelNames[v] : kCusparseNames[v - kKernelCount];
        if (v < kKernelCount) {
            ms[v] = timeMs(launchKernel, &runs[v]);
        } else {
            ms[v] = timeMs(launchCusparse, &sparse[v - kKernelCount]);
        }
        fetchY(&d, hostY);
        if (!checkResult(name, m, &in->ref, hostY, " after the timed runs", true)) {
            ++recheckFailures;
            passed[v] = false;
        }
        if (!(ms[v] > 0.0)) {
            fprintf(stderr, "%s on %s: time is not positive\n", name, m->name);
            ++recheckFailures;
            passed[v] = false;
        }
    }
    failures += recheckFailures;
    if (recheckFailures == 0) {
        printf("  every result checked again after its timed runs: still matches\n");
    }

    double cusparseMs = 0.0;
    int cusparseBest = -1;
    for (int a = 0; a < kCusparseAlgs; ++a) {
        const int v = kKernelCount + a;
        if (passed[v] && (cusparseBest < 0 || ms[v] < cusparseMs)) {
            cusparseMs = ms[v];
            cusparseBest = a;
        }
    }
    const double bytes = compulsoryBytes(m);
    int bestKernel = -1;
    for (int v = 0; v < variants; ++v) {
        if (!passed[v]) continue;
        const double gbs = bytes / (ms[v] * 1e-3) / 1e9;
        const char* name = v < kKernelCount ? kKernelNames[v] : kCusparseNames[v - kKernelCount];
        printf("~ %-18s %9.4f ms  %7.1f MB  %7.1f GB/s  %5.1f%% of copy  %5.2fx cuSPARSE\n", name,
               ms[v], bytes / 1e6, gbs, 100.0 * gbs / copyGBs,
               cusparseMs > 0.0 ? cusparseMs / ms[v] : 0.0);
        if (v < kKernelCount && (bestKernel < 0 || ms[v] < ms[bestKernel])) bestKernel = v;
    }
    for (int v = 0; v < variants; ++v) {
        if (!passed[v]) continue;
        const char* series = v < kKernelCount ? kKernelNames[v] : NULL;
        if (series) {
            printf("~ plot: gbps | %s | %s | %.1f\n", series, m->name, bytes / (ms[v] * 1e-3) / 1e9);
        }
    }
    if (cusparseBest >= 0) {
        printf("~ plot: gbps | cuSPARSE | %s | %.1f\n", m->name, bytes / (cusparseMs * 1e-3) / 1e9);
    }
    printf("~ plot: gbps | copy ceiling | %s | %.1f\n", m->name, copyGBs);
    if (bestKernel >= 0 && cusparseBest >= 0) {
        printf("~ best lesson kernel {%s}: %.2fx cuSPARSE (its faster algorithm here: {%s})\n",
               kKernelNames[bestKernel], cusparseMs / ms[bestKernel],
               kCusparseNames[cusparseBest]);
    }
    result->bestLessonMs = bestKernel >= 0 ? ms[bestKernel] : 0.0;
    result->bestCusparseMs = cusparseMs;

    for (int a = 0; a < kCusparseAlgs; ++a) {
        CUSPARSE_CHECK(cusparseDestroySpMat(sparse[a].matrix));
        CUSPARSE_CHECK(cusparseDestroyDnVec(sparse[a].x));
        CUSPARSE_CHECK(cusparseDestroyDnVec(sparse[a].y));
        CUDA_CHECK(cudaFree(sparse[a].buffer));
    }
    free(hostY);
    freeDevice(&d);
    return failures;
}

// ---------------------------------------------------------------- flags and main

enum InputKind { kInputFile, kInputStencil, kInputKron };

struct InputSpec {
    InputKind kind;
    const char* path;
    int size;  // stencil N or kron scale
};

static bool parseFlagValue(const char* flag, const char* text, int lo, int hi, int* out) {
    long long v = 0;
    if (text == NULL) {
        fprintf(stderr, "flag %s: needs a value\n", flag);
        return false;
    }
    if (!parseInteger(text, &v) || v < lo || v > hi) {
        fprintf(stderr, "flag %s: '%s' is not an integer from %d to %d\n", flag, text, lo, hi);
        return false;
    }
    *out = (int)v;
    return true;
}

int main(int argc, char** argv) {
    // 1. Flags.
    InputSpec specs[kMaxInputs];
    int specCount = 0;
    bool small = false;
    for (int a = 1; a < argc; ++a) {
        const char* arg = argv[a];
        InputSpec s;
        s.path = NULL;
        s.size = 0;
        if (strcmp(arg, "--small") == 0) {
            small = true;
            continue;
        } else if (strcmp(arg, "--stencil") == 0) {
            s.kind = kInputStencil;
            if (!parseFlagValue(arg, a + 1 < argc ? argv[a + 1] : NULL, kMinStencil, kMaxStencil,
                                &s.size)) {
                return EXIT_FAILURE;
            }
            ++a;
        } else if (strcmp(arg, "--kron") == 0) {
            s.kind = kInputKron;
            if (!parseFlagValue(arg, a + 1 < argc ? argv[a + 1] : NULL, kMinKronScale,
                                kMaxKronScale, &s.size)) {
                return EXIT_FAILURE;
            }
            ++a;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            fprintf(stderr, "flag %s: unknown (known: --small, --stencil N, --kron SCALE, "
                    "or Matrix Market paths)\n", arg);
            return EXIT_FAILURE;
        } else {
            s.kind = kInputFile;
            s.path = arg;
        }
        if (specCount == kMaxInputs) {
            fprintf(stderr, "flag %s: more than %d inputs\n", arg, kMaxInputs);
            return EXIT_FAILURE;
        }
        specs[specCount++] = s;
    }
    if (small && specCount > 0) {
        fprintf(stderr, "flag --small: chooses its own inputs, so it takes no --stencil, --kron "
                "or path\n");
        return EXIT_FAILURE;
    }
    if (specCount == 0) {
        specs[0].kind = kInputFile;
        specs[0].path = kWordsPath;
        specs[0].size = 0;
        specs[1].kind = kInputStencil;
        specs[1].path = NULL;
        specs[1].size = small ? kSmallStencil : kDefaultStencil;
        specs[2].kind = kInputKron;
        specs[2].path = NULL;
        specs[2].size = small ? kSmallKronScale : kDefaultKronScale;
        specCount = 3;
    }

    // 2. Load, validate and generate every input before anything else.
    Input inputs[kMaxInputs];
    memset(inputs, 0, sizeof(inputs));
    int loaded = 0;
    for (int i = 0; i < specCount; ++i) {
        bool ok = false;
        if (specs[i].kind == kInputFile) {
            ok = loadMatrixMarket(specs[i].path, &inputs[i].m);
        } else if (specs[i].kind == kInputStencil) {
            ok = makeStencil(specs[i].size, &inputs[i].m);
            if (!ok) fprintf(stderr, "flag --stencil: out of host memory for %d^3\n", specs[i].size);
        } else {
            ok = makeKron(specs[i].size, &inputs[i].m);
            if (!ok) fprintf(stderr, "flag --kron: out of host memory for scale %d\n", specs[i].size);
        }
        ++loaded;  // counted even on failure: a half-built input is freed too
        if (!ok) {
            for (int k = 0; k < loaded; ++k) freeInput(&inputs[k]);
            return EXIT_FAILURE;
        }
    }

    // 3. Host analysis: schedule, lanes, CPU reference, tables.
    printf("Day 37: CSR SpMV, y = A * x in fp32; %d input%s\n", specCount,
           specCount == 1 ? "" : "s");
    for (int i = 0; i < specCount; ++i) {
        Input* in = &inputs[i];
        in->subWarpLanes = chooseSubWarpLanes(&in->m);
        if (!buildTileSchedule(&in->m, &in->tiles) || !computeReference(&in->m, &in->ref)) {
            fprintf(stderr, "%s: out of host memory\n", in->m.name);
            for (int k = 0; k < loaded; ++k) freeInput(&inputs[k]);
            return EXIT_FAILURE;
        }
        printAnalysis(in, i, specCount);
    }

    // 4. The first CUDA call.
    int deviceCount = 0;
    const cudaError_t probe = cudaGetDeviceCount(&deviceCount);
    if (probe != cudaSuccess || deviceCount == 0) {
        printf("no CUDA device found (%s): the host part above ran, the GPU part did not\n",
               probe != cudaSuccess ? cudaGetErrorString(probe) : "0 devices");
        for (int k = 0; k < loaded; ++k) freeInput(&inputs[k]);
        return 2;
    }

    // 5. GPU part.
    const int device = 0;
    CUDA_CHECK(cudaSetDevice(device));
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
    int driver = 0, runtime = 0;
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    printf("\n~ GPU: {%s}, compute capability %d.%d, %d SMs, {driver %d.%d, runtime %d.%d}\n",
           prop.name, prop.major, prop.minor, prop.multiProcessorCount, driver / 1000,
           (driver % 1000) / 10, runtime / 1000, (runtime % 1000) / 10);

    // The ceiling: a device-to-device copy far larger than L2, bytes read
    // plus bytes written, measured now, on this GPU.
    const size_t copyBytes = small ? kCopyBytesSmall : kCopyBytes;
    CopyRun copy;
    copy.bytes = copyBytes;
    void* copyDst = NULL;
    void* copySrc = NULL;
    CUDA_CHECK(cudaMalloc(&copyDst, copyBytes));
    CUDA_CHECK(cudaMalloc(&copySrc, copyBytes));
    CUDA_CHECK(cudaMemset(copySrc, 0x5a, copyBytes));
    copy.dst = copyDst;
    copy.src = copySrc;
    const float copyMs = timeMs(launchCopy, &copy);
    CUDA_CHECK(cudaFree(copyDst));
    CUDA_CHECK(cudaFree(copySrc));
    const double copyGBs = 2.0 * (double)copyBytes / (copyMs * 1e-3) / 1e9;
    printf("~ device-to-device copy of %.1f MB: %.4f ms, %.1f GB/s read + written (the ceiling)\n",
           copyBytes / 1e6, copyMs, copyGBs);
    printf("plotspec: gbps | bar | CSR SpMV bandwidth per kernel against cuSPARSE and the copy "
           "ceiling | input | GB/s (compulsory bytes)\n");

    cusparseHandle_t handle;
    CUSPARSE_CHECK(cusparseCreate(&handle));
    int failures = 0;
    InputResult results[kMaxInputs];
    for (int i = 0; i < specCount; ++i) {
        results[i].isStencil = specs[i].kind == kInputStencil;
        failures += runInput(&inputs[i], handle, copyGBs, &results[i]);
    }
    CUSPARSE_CHECK(cusparseDestroy(handle));

    // 6. Headlines: the goal figures, then PASS or FAIL.
    double logSum = 0.0;
    int logCount = 0;
    double stencilFraction = -1.0;
    for (int i = 0; i < specCount; ++i) {
        if (results[i].bestLessonMs > 0.0 && results[i].bestCusparseMs > 0.0) {
            logSum += log(results[i].bestCusparseMs / results[i].bestLessonMs);
            ++logCount;
        }
        if (results[i].isStencil && results[i].bestLessonMs > 0.0 && stencilFraction < 0.0) {
            const double gbs = compulsoryBytes(&inputs[i].m) / (results[i].bestLessonMs * 1e-3) / 1e9;
            stencilFraction = gbs / copyGBs;
        }
    }
    printf("\n");
    const double geomean = logCount > 0 ? exp(logSum / logCount) : 0.0;
    printf("~ goal: best lesson kernel >= 1.0x cuSPARSE, geomean over the inputs: %.2f {%s}\n",
           geomean, geomean >= 1.0 ? "met" : "not met");
    if (stencilFraction >= 0.0) {
        printf("~ goal: >= 75%% of the copy bandwidth on the stencil: %.1f%% {%s}\n",
               100.0 * stencilFraction, stencilFraction >= 0.75 ? "met" : "not met");
    }
    printf("headline: best_vs_cusparse_geomean = %.2f\n", geomean);
    if (stencilFraction >= 0.0) {
        printf("headline: stencil_copy_fraction = %.3f\n", stencilFraction);
    }
    for (int k = 0; k < loaded; ++k) freeInput(&inputs[k]);
    if (failures > 0) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        printf("FAIL\n");
        return EXIT_FAILURE;
    }
    printf("PASS\n");
    return EXIT_SUCCESS;
}
