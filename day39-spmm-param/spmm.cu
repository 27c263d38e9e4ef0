// Day 39: a sparse-times-dense product (SpMM) whose kernel has parameters.
//
// C = A * B, A a sparse n x n graph matrix, B a dense n x dim matrix of
// vertex embeddings, row-major, as a graph neural network layer computes it.
// No single SpMM kernel is best on every graph at every dim. This program
// builds one kernel engine with four knobs and measures the whole space:
//
//   W  warps per block                         (launch shape)
//   F  32-column strips one lane computes      (thread coarsening)
//   V  rows that share one column index        (vectorized blocking, 1 or 2)
//   S  long rows cut into pieces, atomics      (workload balancing, off/on)
//
// The sparse matrix is stored in PCSR, a CSR whose entries are V x 1
// vectors and whose work items may be pieces of a row (TRow names the row a
// piece adds into). Every configuration, the basic one-warp-per-row kernel
// and cuSPARSE are checked against a CPU reference, then timed, at each dim.
//
// Why this data. The question is which knob helps which graph, so the inputs
// are chosen to differ in exactly what the knobs respond to:
//   words      cuda-words.mtx beside this file: a real word graph, skewed,
//              ids in alphabetical order (so scattered), and small
//   kron       Graph500 Kronecker graph: power-law degrees, ids scattered
//   mesh3d     27-point 3D stencil: even degrees, neighbours' ids close
//   community  clusters of consecutive ids, dense inside: rows 2i and 2i+1
//              share most columns, which is where V = 2 pays
//   road       a grid with edges removed: degree about 3, like a road map
// and dim goes from 16 to 256, the widths of GNN layers.
//
// Build: nvcc -O3 -arch=sm_90 -o spmm spmm.cu -lcusparse
// Run:   ./spmm                      words + 4 generated graphs, dims 16..256 x2
//        ./spmm --all-dims           dims 16, 32, ..., 256 as the paper sweeps
//        ./spmm --dims 48,96         any dims from 1 to 256
//        ./spmm --kron-scale 20      a bigger (or smaller) Kronecker graph
//        ./spmm --small              tiny inputs, dims 16 and 48, W in {1, 4}
//                                    (for compute-sanitizer)
//        ./spmm A.mtx [B.mtx ...]    your own square Matrix Market matrices
// Run it from this folder: it opens cuda-words.mtx by a relative path.
//
// Transcript: the newest evidence/run-*.txt beside this file.

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime.h>
#include <cusparse.h>

// ---------------------------------------------------------------- constants

static const int kWarpSize = 32;  // lanes per warp on every NVIDIA GPU to date
static const int kMaxF = 8;       // F is compiled for 1..8, so a warp covers at most 256 columns
static const int kMaxDim = kWarpSize * kMaxF;  // dim beyond this would need F > 8
static const int kMaxDims = 16;                // the paper's 16..256 step 16 is the longest list
static const int kDefaultDims[] = {16, 32, 64, 128, 256};  // the widths the issue asks for
static const int kSmallDims[] = {16, 48};  // 48: a residual strip half full, and F = 2 exists
static const int kWarpChoices[] = {1, 2, 4, 8};  // 32..256 threads; W = 1 meets the blocks-per-SM cap
static const int kSmallWarpChoices[] = {1, 4};   // the smallest block, and the default's, to keep sanitizer runs short

// "Everyone's default": the shape most hand-written SpMM kernels start from,
// one warp per row, one 32-column strip per warp, 128-thread blocks, no
// blocking, no balancing. It is the engine's answer to "no tuning at all".
static const int kDefaultW = 4;
static const int kDefaultF = 1;
static const int kDefaultV = 1;
static const int kDefaultS = 0;
static const int kBasicWarpsPerBlock = 4;  // Algorithm 1 with the same 128-thread blocks

// The check run pays each kernel's lazy module load; three more warm-ups fill
// the L2 and the clocks, then ten timed runs average out launch jitter.
static const int kWarmupRuns = 3;
static const int kTimedRuns = 10;

// Graph500's Kronecker generator: 16 edges per vertex, quadrant
// probabilities 0.57 / 0.19 / 0.19 / 0.05, vertex ids shuffled afterwards.
static const int kKronScaleDefault = 18;  // 262,144 vertices: B exceeds the 60 MB L2 from dim 64 on
static const int kKronScaleMin = 10;      // below this the graph is a few launches' worth of work
static const int kKronScaleMax = 22;      // 4M vertices: the host reference would take minutes
static const int kKronScaleSmall = 10;
static const int kKronEdgeFactor = 16;
static const double kKronA = 0.57;
static const double kKronB = 0.19;
static const double kKronC = 0.19;

static const int kMeshSide = 64;       // 64^3 = 262,144 vertices, 27 entries per interior row
static const int kMeshSideSmall = 10;  // 1,000 vertices
static const int kRoadSide = 512;      // 512^2 = 262,144 vertices
static const int kRoadSideSmall = 32;
static const double kRoadKeep = 0.7;   // share of grid edges kept: mean degree 2.8, as in SNAP's road maps
static const int kCommunityVertices = 1 << 17;  // 131,072: denser rows, so fewer of them for the same work
static const int kCommunityVerticesSmall = 1024;
static const int kCommunityMinSize = 16;   // cluster sizes drawn from 16..64: co-author-like groups
static const int kCommunityMaxSize = 64;
static const double kCommunityInside = 0.7;  // chance of each pair inside a cluster: about 27 neighbours
static const int kCommunityOutside = 2;      // random long-range edges per vertex, so it stays one graph

// Matrix Market limits: int offsets in CSR, and a symmetric file doubles.
static const long long kMaxRows = 1LL << 26;
static const long long kMaxEntries = 1LL << 29;

// Fixed seeds: the same graphs and the same B on every run.
static const uint64_t kSeedKron = 0x6b726f6e65636b72ull;
static const uint64_t kSeedCommunity = 0x636f6d6d756e6974ull;
static const uint64_t kSeedRoad = 0x726f61646d617073ull;
static const uint64_t kSeedValues = 0x76616c7565733339ull;
static const uint64_t kSeedDense = 0x64656e7365423339ull;

static const char* kDataPath = "cuda-words.mtx";

// ------------------------------------------------------------- error macros

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

// ---------------------------------------------------------- data structures

// CSR with sorted, unique column indices in every row.
struct Csr {
    int n;
    int nnz;
    int* rowPtr;  // n + 1
    int* colIdx;  // nnz
    float* val;   // nnz
};

// Vectorized blocking: rows grouped into panels of V; each distinct column of
// a panel becomes one vector of V values, zero where a row lacks the column.
// With V = 1 this is the CSR itself.
struct Blocked {
    int V;
    int panels;     // ceil(n / V)
    int vectors;    // nnz_V, nonzero vectors
    int* panelPtr;  // panels + 1, into the vectors
    int* vecCol;    // vectors
    float* vecVal;  // vectors * V, the V values of vector e at e * V
};

// Workload balancing over a Blocked: each non-empty panel cut into pieces of
// at most splitGranularity vectors. pieceRow is the paper's TRow: the panel
// a piece adds its partial sums into. Empty panels get no piece at all.
struct Split {
    int pieces;
    int splitGranularity;  // SG
    int* pieceStart;       // pieces + 1, into the vectors
    int* pieceRow;         // pieces
};

// What the paper's decider reads (its Table 3), measured once per input. The
// sweep below does not use it to choose; a decider added later would.
struct Features {
    int rows;
    int nonEmptyRows;
    int nnz;
    int maxDegree;
    double meanDegree;       // over non-empty rows, the paper's d-hat
    double degreeCv;         // coefficient of variation over non-empty rows
    double meanBandwidth;    // last minus first column of a row, mean over non-empty rows
    double paddingRatio[2];  // PR_1, PR_2
    double splitRatio[2];    // SR_1, SR_2: pieces per non-empty panel
    int splitGranularity[2];
};

struct Input {
    char name[40];
    char about[160];
    Csr a;
    Blocked blocked[2];  // V = 1, V = 2
    Split split[2];
    Features f;
};

struct Config {
    int W;
    int F;
    int V;
    int S;
};

// Everything the host part decided from the flags.
struct Options {
    int small;
    int dims[kMaxDims];
    int dimCount;
    int kronScale;
    int pathCount;
    char** paths;
};

// ---------------------------------------------------------- small utilities

static uint64_t splitmix64(uint64_t* state) {
    uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t hash64(uint64_t x) {
    uint64_t state = x;
    return splitmix64(&state);
}

// A uniform double in [0, 1) from the top 53 bits.
static double unit01(uint64_t bits) { return (double)(bits >> 11) * 0x1p-53; }

// The value of an undirected edge, the same from both ends: 0.25 .. 2.0 in
// steps of 0.25, exact in float, and varied, so a wrong column shows.
static float edgeValue(int u, int v) {
    const uint64_t lo = (uint64_t)(u < v ? u : v);
    const uint64_t hi = (uint64_t)(u < v ? v : u);
    const uint64_t h = hash64((lo << 32 | hi) ^ kSeedValues);
    return 0.25f * (float)(1 + (h >> 61));
}

// B[j][k] depends on (j, k) only, so B at dim d is the first d columns of B
// at any wider dim, and one CPU reference at the widest dim serves them all.
// Values in [-1, 1) in steps of 2^-15: exact in float, no two rows alike.
static float denseValue(int row, int col) {
    const uint64_t h = hash64(((uint64_t)row << 8 | (uint64_t)col) ^ kSeedDense);
    return (float)((h >> 48) & 0xffff) * 0x1p-15f - 1.0f;
}

static int ceilDiv(int a, int b) { return (a + b - 1) / b; }

static void* checkedMalloc(size_t bytes) {
    void* p = malloc(bytes > 0 ? bytes : 1);
    if (p == NULL) {
        fprintf(stderr, "out of host memory (%zu bytes)\n", bytes);
        exit(EXIT_FAILURE);
    }
    return p;
}

static void freeCsr(Csr* a) {
    free(a->rowPtr);
    free(a->colIdx);
    free(a->val);
    a->rowPtr = NULL;
    a->colIdx = NULL;
    a->val = NULL;
}

static void freeInput(Input* in) {
    freeCsr(&in->a);
    for (int v = 0; v < 2; ++v) {
        free(in->blocked[v].panelPtr);
        free(in->blocked[v].vecCol);
        free(in->blocked[v].vecVal);
        free(in->split[v].pieceStart);
        free(in->split[v].pieceRow);
    }
    memset(in, 0, sizeof(*in));
}

// ------------------------------------------------------- CSR from entries

// Orders `count` entries by (row, column) with two stable counting sorts, the
// second pass keeping the first pass's column order inside each row. Linear
// time; on a Kronecker graph a comparison sort would spend seconds here.
// Returns the entry ids in order.
static int* sortEntries(int n, long long count, const int* row, const int* col) {
    int* byCol = (int*)checkedMalloc((size_t)count * sizeof(int));
    int* order = (int*)checkedMalloc((size_t)count * sizeof(int));
    long long* start = (long long*)checkedMalloc((size_t)(n + 1) * sizeof(long long));

    memset(start, 0, (size_t)(n + 1) * sizeof(long long));
    for (long long e = 0; e < count; ++e) ++start[col[e] + 1];
    for (int i = 0; i < n; ++i) start[i + 1] += start[i];
    for (long long e = 0; e < count; ++e) byCol[start[col[e]]++] = (int)e;

    memset(start, 0, (size_t)(n + 1) * sizeof(long long));
    for (long long e = 0; e < count; ++e) ++start[row[e] + 1];
    for (int i = 0; i < n; ++i) start[i + 1] += start[i];
    for (long long k = 0; k < count; ++k) {
        const int e = byCol[k];
        order[start[row[e]]++] = e;
    }
    free(start);
    free(byCol);
    return order;
}

// Builds a symmetric CSR from undirected edges (u, v): both directions, a
// self loop once, duplicates merged. Values come from edgeValue, so the two
// copies of an edge, and any duplicate, agree.
static void csrFromEdges(int n, long long edges, const int* eu, const int* ev, Csr* a) {
    int* row = (int*)checkedMalloc((size_t)(2 * edges) * sizeof(int));
    int* col = (int*)checkedMalloc((size_t)(2 * edges) * sizeof(int));
    long long count = 0;
    for (long long e = 0; e < edges; ++e) {
        row[count] = eu[e];
        col[count] = ev[e];
        ++count;
        if (eu[e] != ev[e]) {
            row[count] = ev[e];
            col[count] = eu[e];
            ++count;
        }
    }
    int* order = sortEntries(n, count, row, col);

    a->n = n;
    a->rowPtr = (int*)checkedMalloc((size_t)(n + 1) * sizeof(int));
    memset(a->rowPtr, 0, (size_t)(n + 1) * sizeof(int));
    long long kept = 0;
    for (long long k = 0; k < count; ++k) {
        const int e = order[k];
        const int prev = k > 0 ? order[k - 1] : -1;
        if (prev >= 0 && row[prev] == row[e] && col[prev] == col[e]) continue;
        ++a->rowPtr[row[e] + 1];
        ++kept;
    }
    a->nnz = (int)kept;
    a->colIdx = (int*)checkedMalloc((size_t)kept * sizeof(int));
    a->val = (float*)checkedMalloc((size_t)kept * sizeof(float));
    for (int i = 0; i < n; ++i) a->rowPtr[i + 1] += a->rowPtr[i];
    long long out = 0;
    for (long long k = 0; k < count; ++k) {
        const int e = order[k];
        const int prev = k > 0 ? order[k - 1] : -1;
        if (prev >= 0 && row[prev] == row[e] && col[prev] == col[e]) continue;
        a->colIdx[out] = col[e];
        a->val[out] = edgeValue(row[e], col[e]);
        ++out;
    }
    free(order);
    free(row);
    free(col);
}

// ----------------------------------------------------------------- generators

// Graph500 Kronecker (R-MAT) graph: each edge picks one quadrant per level,
// which piles edges onto a few vertices (power law). Then the ids are
// shuffled, as Graph500 does, so a vertex's neighbours are anywhere in B.
static void generateKronecker(int scale, Csr* a) {
    const int n = 1 << scale;
    const long long edges = (long long)kKronEdgeFactor * n;
    int* eu = (int*)checkedMalloc((size_t)edges * sizeof(int));
    int* ev = (int*)checkedMalloc((size_t)edges * sizeof(int));
    int* perm = (int*)checkedMalloc((size_t)n * sizeof(int));
    uint64_t state = kSeedKron ^ (uint64_t)scale;
    long long kept = 0;
    for (long long e = 0; e < edges; ++e) {
        int u = 0;
        int v = 0;
        for (int level = 0; level < scale; ++level) {
            const double r = unit01(splitmix64(&state));
            const int down = r >= kKronA + kKronB;  // quadrants C and D: lower half
            const int right = (r >= kKronA && r < kKronA + kKronB) || r >= kKronA + kKronB + kKronC;
            u = 2 * u + down;
            v = 2 * v + right;
        }
        if (u == v) continue;  // Graph500 drops self loops
        eu[kept] = u;
        ev[kept] = v;
        ++kept;
    }
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int i = n - 1; i > 0; --i) {  // Fisher-Yates
        const int j = (int)(splitmix64(&state) % (uint64_t)(i + 1));
        const int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    for (long long e = 0; e < kept; ++e) {
        eu[e] = perm[eu[e]];
        ev[e] = perm[ev[e]];
    }
    csrFromEdges(n, kept, eu, ev, a);
    free(eu);
    free(ev);
    free(perm);
}

// 27-point stencil on a side^3 grid, diagonal included, id = x + side*(y +
// side*z). Walking dz, dy, dx upwards visits the neighbours in increasing id,
// so the rows come out sorted without a sort.
static void generateMesh3d(int side, Csr* a) {
    const int n = side * side * side;
    a->n = n;
    a->rowPtr = (int*)checkedMalloc((size_t)(n + 1) * sizeof(int));
    a->rowPtr[0] = 0;
    long long count = 0;
    for (int pass = 0; pass < 2; ++pass) {
        count = 0;
        for (int id = 0; id < n; ++id) {
            const int x = id % side;
            const int y = (id / side) % side;
            const int z = id / (side * side);
            for (int dz = -1; dz <= 1; ++dz) {
                for (int dy = -1; dy <= 1; ++dy) {
                    for (int dx = -1; dx <= 1; ++dx) {
                        const int nx = x + dx;
                        const int ny = y + dy;
                        const int nz = z + dz;
                        if (nx < 0 || ny < 0 || nz < 0 || nx >= side || ny >= side || nz >= side) continue;
                        const int nb = nx + side * (ny + side * nz);
                        if (pass == 1) {
                            a->colIdx[count] = nb;
                            a->val[count] = edgeValue(id, nb);
                        }
                        ++count;
                    }
                }
            }
            if (pass == 0) a->rowPtr[id + 1] = (int)count;
        }
        if (pass == 0) {
            a->colIdx = (int*)checkedMalloc((size_t)count * sizeof(int));
            a->val = (float*)checkedMalloc((size_t)count * sizeof(float));
        }
    }
    a->nnz = (int)count;
}

// A grid with 30% of its edges removed: degree 0..4, mean 2.8, the shape of
// a road map. Ids stay row-major, so neighbours are +-1 and +-side, and rows
// i and i + 1 share no column at all: the worst case for V = 2.
static int roadEdgeKept(int u, int v) {
    const uint64_t h = hash64(((uint64_t)u << 32 | (uint64_t)v) ^ kSeedRoad);
    return unit01(h) < kRoadKeep;
}

static void generateRoad(int side, Csr* a) {
    const int n = side * side;
    a->n = n;
    a->rowPtr = (int*)checkedMalloc((size_t)(n + 1) * sizeof(int));
    a->rowPtr[0] = 0;
    long long count = 0;
    for (int pass = 0; pass < 2; ++pass) {
        count = 0;
        for (int id = 0; id < n; ++id) {
            const int x = id % side;
            const int y = id / side;
            int nbs[4];
            int k = 0;
            // increasing id: up, left, right, down; the edge is named by (lower, higher)
            if (y > 0 && roadEdgeKept(id - side, id)) nbs[k++] = id - side;
            if (x > 0 && roadEdgeKept(id - 1, id)) nbs[k++] = id - 1;
            if (x + 1 < side && roadEdgeKept(id, id + 1)) nbs[k++] = id + 1;
            if (y + 1 < side && roadEdgeKept(id, id + side)) nbs[k++] = id + side;
            for (int t = 0; t < k; ++t) {
                if (pass == 1) {
                    a->colIdx[count] = nbs[t];
                    a->val[count] = edgeValue(id, nbs[t]);
                }
                ++count;
            }
            if (pass == 0) a->rowPtr[id + 1] = (int)count;
        }
        if (pass == 0) {
            a->colIdx = (int*)checkedMalloc((size_t)(count > 0 ? count : 1) * sizeof(int));
            a->val = (float*)checkedMalloc((size_t)(count > 0 ? count : 1) * sizeof(float));
        }
    }
    a->nnz = (int)count;
}

// Clusters of consecutive ids (sizes 16..64), each pair inside a cluster
// joined with probability 0.6, plus two random edges per vertex to anywhere.
// Neighbouring rows then share most of their columns: the locality a graph
// reordering (the paper uses Rabbit Order) gives real community graphs.
static void generateCommunity(int n, Csr* a) {
    uint64_t state = kSeedCommunity ^ (uint64_t)n;
    long long cap = (long long)n * (kCommunityMaxSize / 2 + kCommunityOutside) + 16;
    int* eu = (int*)checkedMalloc((size_t)cap * sizeof(int));
    int* ev = (int*)checkedMalloc((size_t)cap * sizeof(int));
    long long edges = 0;
    int first = 0;
    while (first < n) {
        int size = kCommunityMinSize +
                   (int)(splitmix64(&state) % (uint64_t)(kCommunityMaxSize - kCommunityMinSize + 1));
        if (size > n - first) size = n - first;
        for (int i = first; i < first + size; ++i) {
            for (int j = i + 1; j < first + size; ++j) {
                if (unit01(splitmix64(&state)) < kCommunityInside) {
                    eu[edges] = i;
                    ev[edges] = j;
                    ++edges;
                }
            }
        }
        first += size;
    }
    for (int i = 0; i < n; ++i) {
        for (int t = 0; t < kCommunityOutside; ++t) {
            const int j = (int)(splitmix64(&state) % (uint64_t)n);
            if (j == i) continue;
            eu[edges] = i;
            ev[edges] = j;
            ++edges;
        }
    }
    csrFromEdges(n, edges, eu, ev, a);
    free(eu);
    free(ev);
}

// ------------------------------------------------------ Matrix Market loader

// Reads one line; returns 0 at end of file, -1 when the line does not fit.
static int readLine(FILE* file, char* line, int cap) {
    if (fgets(line, cap, file) == NULL) return 0;
    const size_t len = strlen(line);
    if (len == (size_t)cap - 1 && line[len - 1] != '\n' && !feof(file)) return -1;
    return 1;
}

static int isBlank(const char* s) {
    for (; *s; ++s) {
        if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\n') return 0;
    }
    return 1;
}

static int sameWord(const char* a, const char* b) {
    for (; *a && *b; ++a, ++b) {
        char ca = *a;
        if (ca >= 'A' && ca <= 'Z') ca = (char)(ca - 'A' + 'a');
        if (ca != *b) return 0;
    }
    return *a == '\0' && *b == '\0';
}

// Parses a whole decimal integer token; 0 when it is not one.
static int parseLongLong(const char* token, long long* out) {
    char* end = NULL;
    errno = 0;
    const long long v = strtoll(token, &end, 10);
    if (end == token || *end != '\0' || errno == ERANGE) return 0;
    *out = v;
    return 1;
}

// Loads a square Matrix Market coordinate matrix (real, integer or pattern;
// general or symmetric, a symmetric file holding the lower triangle) into
// CSR. Refuses the file at its first bad line, naming the line and the fault;
// frees everything it allocated on that path. Returns 1 on success.
static int loadMatrixMarket(const char* path, Csr* a) {
    FILE* file = fopen(path, "r");
    if (file == NULL) {
        fprintf(stderr, "%s: cannot open: %s\n", path, strerror(errno));
        return 0;
    }
    char line[1024];
    int lineNo = 1;
    int got = readLine(file, line, sizeof(line));
    if (got == 0) {
        fprintf(stderr, "%s: line 1: the file is empty\n", path);
        fclose(file);
        return 0;
    }
    char banner[64] = "", object[64] = "", format[64] = "", field[64] = "", symmetry[64] = "";
    if (got < 0 || sscanf(line, "%63s %63s %63s %63s %63s", banner, object, format, field, symmetry) != 5 ||
        strcmp(banner, "%%MatrixMarket") != 0) {
        fprintf(stderr, "%s: line 1: not a Matrix Market header (want %%%%MatrixMarket matrix coordinate FIELD SYMMETRY)\n", path);
        fclose(file);
        return 0;
    }
    if (!sameWord(object, "matrix")) {
        fprintf(stderr, "%s: line 1: object %s is not supported (want matrix)\n", path, object);
        fclose(file);
        return 0;
    }
    if (!sameWord(format, "coordinate")) {
        fprintf(stderr, "%s: line 1: format %s is not supported (want coordinate)\n", path, format);
        fclose(file);
        return 0;
    }
    const int pattern = sameWord(field, "pattern");
    const int integer = sameWord(field, "integer");
    if (!pattern && !integer && !sameWord(field, "real")) {
        fprintf(stderr, "%s: line 1: field %s is not supported (want real, integer or pattern)\n", path, field);
        fclose(file);
        return 0;
    }
    const int symmetric = sameWord(symmetry, "symmetric");
    if (!symmetric && !sameWord(symmetry, "general")) {
        fprintf(stderr, "%s: line 1: symmetry %s is not supported (want general or symmetric)\n", path, symmetry);
        fclose(file);
        return 0;
    }

    // The size line: the first line after the header that is not a comment.
    long long rows = 0, cols = 0, entries = 0;
    for (;;) {
        got = readLine(file, line, sizeof(line));
        ++lineNo;
        if (got == 0) {
            fprintf(stderr, "%s: line %d: the file ends before its size line\n", path, lineNo);
            fclose(file);
            return 0;
        }
        if (got < 0) {
            fprintf(stderr, "%s: line %d: line longer than %d characters\n", path, lineNo, (int)sizeof(line) - 2);
            fclose(file);
            return 0;
        }
        if (line[0] != '%' && !isBlank(line)) break;
    }
    {
        char t1[64] = "", t2[64] = "", t3[64] = "", extra[8] = "";
        const int tokens = sscanf(line, "%63s %63s %63s %7s", t1, t2, t3, extra);
        if (tokens != 3 || !parseLongLong(t1, &rows) || !parseLongLong(t2, &cols) || !parseLongLong(t3, &entries)) {
            fprintf(stderr, "%s: line %d: bad size line (want: rows columns entries)\n", path, lineNo);
            fclose(file);
            return 0;
        }
    }
    if (rows < 1 || cols < 1 || entries < 0) {
        fprintf(stderr, "%s: line %d: sizes must be positive (got %lld %lld %lld)\n", path, lineNo, rows, cols, entries);
        fclose(file);
        return 0;
    }
    if (rows != cols) {
        fprintf(stderr, "%s: line %d: matrix is %lld x %lld; C = A * B here needs a square A\n", path, lineNo, rows, cols);
        fclose(file);
        return 0;
    }
    if (rows > kMaxRows || entries > kMaxEntries) {
        fprintf(stderr, "%s: line %d: %lld rows and %lld entries is more than this lesson takes (%lld, %lld)\n", path,
                lineNo, rows, entries, kMaxRows, kMaxEntries);
        fclose(file);
        return 0;
    }
    if (entries == 0) {
        fprintf(stderr, "%s: line %d: the matrix has no entries\n", path, lineNo);
        fclose(file);
        return 0;
    }
    if (entries > rows * rows) {
        fprintf(stderr, "%s: line %d: %lld entries cannot fit in a %lld x %lld matrix\n", path, lineNo, entries, rows, rows);
        fclose(file);
        return 0;
    }

    const int n = (int)rows;
    const long long cap = symmetric ? 2 * entries : entries;
    int* r = (int*)checkedMalloc((size_t)cap * sizeof(int));
    int* c = (int*)checkedMalloc((size_t)cap * sizeof(int));
    float* v = (float*)checkedMalloc((size_t)cap * sizeof(float));
    int* lineOf = (int*)checkedMalloc((size_t)cap * sizeof(int));
    long long count = 0;
    long long read = 0;
    int ok = 1;
    while (ok) {
        got = readLine(file, line, sizeof(line));
        ++lineNo;
        if (got == 0) break;
        if (got < 0) {
            fprintf(stderr, "%s: line %d: line longer than %d characters\n", path, lineNo, (int)sizeof(line) - 2);
            ok = 0;
            break;
        }
        if (line[0] == '%' || isBlank(line)) continue;
        if (read == entries) {
            fprintf(stderr, "%s: line %d: more entries than the size line's %lld\n", path, lineNo, entries);
            ok = 0;
            break;
        }
        char t1[64] = "", t2[64] = "", t3[64] = "", extra[8] = "";
        const int tokens = sscanf(line, "%63s %63s %63s %7s", t1, t2, t3, extra);
        long long i = 0, j = 0;
        if (tokens != (pattern ? 2 : 3) || !parseLongLong(t1, &i) || !parseLongLong(t2, &j)) {
            fprintf(stderr, "%s: line %d: bad entry (want: row column%s)\n", path, lineNo, pattern ? "" : " value");
            ok = 0;
            break;
        }
        if (i < 1 || i > rows) {
            fprintf(stderr, "%s: line %d: row %lld is outside 1..%lld\n", path, lineNo, i, rows);
            ok = 0;
            break;
        }
        if (j < 1 || j > rows) {
            fprintf(stderr, "%s: line %d: column %lld is outside 1..%lld\n", path, lineNo, j, rows);
            ok = 0;
            break;
        }
        if (symmetric && j > i) {
            fprintf(stderr, "%s: line %d: entry (%lld, %lld) is above the diagonal of a symmetric file\n", path, lineNo,
                    i, j);
            ok = 0;
            break;
        }
        float value = 0.0f;
        if (pattern) {
            // No values in the file: make varied ones, because all-ones
            // values would hide a wrong column index.
            value = edgeValue((int)(i - 1), (int)(j - 1));
        } else {
            char* end = NULL;
            const double d = strtod(t3, &end);
            if (end == t3 || *end != '\0') {
                fprintf(stderr, "%s: line %d: value %s is not a number\n", path, lineNo, t3);
                ok = 0;
                break;
            }
            if (!isfinite(d) || fabs(d) > 3.0e38) {
                fprintf(stderr, "%s: line %d: value %s is not a finite float\n", path, lineNo, t3);
                ok = 0;
                break;
            }
            if (integer && d != floor(d)) {
                fprintf(stderr, "%s: line %d: value %s is not an integer\n", path, lineNo, t3);
                ok = 0;
                break;
            }
            value = (float)d;
        }
        r[count] = (int)(i - 1);
        c[count] = (int)(j - 1);
        v[count] = value;
        lineOf[count] = lineNo;
        ++count;
        if (symmetric && i != j) {
            r[count] = (int)(j - 1);
            c[count] = (int)(i - 1);
            v[count] = value;
            lineOf[count] = lineNo;
            ++count;
        }
        ++read;
    }
    fclose(file);
    if (ok && read < entries) {
        fprintf(stderr, "%s: line %d: the file ends after %lld of %lld entries\n", path, lineNo, read, entries);
        ok = 0;
    }
    int* order = NULL;
    if (ok) {
        order = sortEntries(n, count, r, c);
        for (long long k = 1; k < count && ok; ++k) {
            const int e = order[k];
            const int p = order[k - 1];
            if (r[e] == r[p] && c[e] == c[p]) {
                const int later = lineOf[e] > lineOf[p] ? lineOf[e] : lineOf[p];
                const int earlier = lineOf[e] > lineOf[p] ? lineOf[p] : lineOf[e];
                fprintf(stderr, "%s: line %d: entry (%d, %d) repeats line %d\n", path, later,
                        (symmetric && r[e] < c[e] ? c[e] : r[e]) + 1, (symmetric && r[e] < c[e] ? r[e] : c[e]) + 1,
                        earlier);
                ok = 0;
            }
        }
    }
    if (ok) {
        a->n = n;
        a->nnz = (int)count;
        a->rowPtr = (int*)checkedMalloc((size_t)(n + 1) * sizeof(int));
        a->colIdx = (int*)checkedMalloc((size_t)count * sizeof(int));
        a->val = (float*)checkedMalloc((size_t)count * sizeof(float));
        memset(a->rowPtr, 0, (size_t)(n + 1) * sizeof(int));
        for (long long k = 0; k < count; ++k) {
            const int e = order[k];
            ++a->rowPtr[r[e] + 1];
            a->colIdx[k] = c[e];
            a->val[k] = v[e];
        }
        for (int i = 0; i < n; ++i) a->rowPtr[i + 1] += a->rowPtr[i];
    }
    free(order);
    free(r);
    free(c);
    free(v);
    free(lineOf);
    return ok;
}

// --------------------------------------------------------------- PCSR build

// snippet: pcsr-build
// Vectorized blocking: for each panel of V rows, merge the rows' sorted
// column lists; every distinct column becomes one vector, and a row that
// lacks the column contributes a zero (the padding PR_V counts).
static void buildBlocked(const Csr* a, int V, Blocked* b) {
    b->V = V;
    b->panels = ceilDiv(a->n, V);
    b->panelPtr = (int*)checkedMalloc((size_t)(b->panels + 1) * sizeof(int));
    int* cursor = (int*)checkedMalloc((size_t)V * sizeof(int));
    for (int pass = 0; pass < 2; ++pass) {  // pass 0 counts, pass 1 fills
        int vectors = 0;
        b->panelPtr[0] = 0;
        for (int p = 0; p < b->panels; ++p) {
            for (int k = 0; k < V; ++k) {
                cursor[k] = p * V + k < a->n ? a->rowPtr[p * V + k] : 0;
            }
            for (;;) {
                int col = INT32_MAX;  // the smallest column not yet taken
                for (int k = 0; k < V; ++k) {
                    const int row = p * V + k;
                    if (row < a->n && cursor[k] < a->rowPtr[row + 1] && a->colIdx[cursor[k]] < col) {
                        col = a->colIdx[cursor[k]];
                    }
                }
                if (col == INT32_MAX) break;
                for (int k = 0; k < V; ++k) {
                    const int row = p * V + k;
                    const int has = row < a->n && cursor[k] < a->rowPtr[row + 1] && a->colIdx[cursor[k]] == col;
                    if (pass == 1) b->vecVal[(size_t)vectors * V + k] = has ? a->val[cursor[k]] : 0.0f;
                    if (has) ++cursor[k];
                }
                if (pass == 1) b->vecCol[vectors] = col;
                ++vectors;
            }
            b->panelPtr[p + 1] = vectors;
        }
        if (pass == 0) {
            b->vectors = vectors;
            b->vecCol = (int*)checkedMalloc((size_t)vectors * sizeof(int));
            b->vecVal = (float*)checkedMalloc((size_t)vectors * V * sizeof(float));
        }
    }
    free(cursor);
}

// Workload balancing: cut every non-empty panel into pieces of at most SG
// vectors. TRow (pieceRow) records the panel each piece adds into.
static void buildSplit(const Blocked* b, int splitGranularity, Split* s) {
    s->splitGranularity = splitGranularity;
    int pieces = 0;
    for (int p = 0; p < b->panels; ++p) {
        pieces += ceilDiv(b->panelPtr[p + 1] - b->panelPtr[p], splitGranularity);
    }
    s->pieces = pieces;
    s->pieceStart = (int*)checkedMalloc((size_t)(pieces + 1) * sizeof(int));
    s->pieceRow = (int*)checkedMalloc((size_t)(pieces > 0 ? pieces : 1) * sizeof(int));
    int k = 0;
    for (int p = 0; p < b->panels; ++p) {
        for (int e = b->panelPtr[p]; e < b->panelPtr[p + 1]; e += splitGranularity) {
            s->pieceStart[k] = e;
            s->pieceRow[k] = p;
            ++k;
        }
    }
    s->pieceStart[pieces] = b->vectors;
}
// end snippet

// SG: the mean number of vectors in a non-empty panel, rounded up to a whole
// number of warps' worth (32). A piece then holds about one average row, so
// only rows longer than average are cut, and each cut piece fills a warp's
// staging pass exactly.
static int splitGranularityOf(const Blocked* b) {
    int nonEmpty = 0;
    for (int p = 0; p < b->panels; ++p) nonEmpty += b->panelPtr[p + 1] > b->panelPtr[p];
    const double mean = nonEmpty > 0 ? (double)b->vectors / nonEmpty : 1.0;
    const int sg = ceilDiv((int)ceil(mean), kWarpSize) * kWarpSize;
    return sg > 0 ? sg : kWarpSize;
}

static void analyseInput(Input* in) {
    const Csr* a = &in->a;
    Features* f = &in->f;
    f->rows = a->n;
    f->nnz = a->nnz;
    f->nonEmptyRows = 0;
    f->maxDegree = 0;
    double sum = 0.0, sumSq = 0.0, band = 0.0;
    for (int i = 0; i < a->n; ++i) {
        const int d = a->rowPtr[i + 1] - a->rowPtr[i];
        if (d == 0) continue;
        ++f->nonEmptyRows;
        sum += d;
        sumSq += (double)d * d;
        band += a->colIdx[a->rowPtr[i + 1] - 1] - a->colIdx[a->rowPtr[i]];
        if (d > f->maxDegree) f->maxDegree = d;
    }
    const double m = f->nonEmptyRows > 0 ? f->nonEmptyRows : 1;
    f->meanDegree = sum / m;
    const double var = sumSq / m - f->meanDegree * f->meanDegree;
    f->degreeCv = f->meanDegree > 0 ? sqrt(var > 0 ? var : 0) / f->meanDegree : 0.0;
    f->meanBandwidth = band / m;
    for (int v = 0; v < 2; ++v) {
        Blocked* b = &in->blocked[v];
        buildBlocked(a, v + 1, b);
        f->paddingRatio[v] = 1.0 - (double)a->nnz / ((double)b->vectors * (v + 1));
        const int sg = splitGranularityOf(b);
        buildSplit(b, sg, &in->split[v]);
        int nonEmptyPanels = 0;
        for (int p = 0; p < b->panels; ++p) nonEmptyPanels += b->panelPtr[p + 1] > b->panelPtr[p];
        f->splitGranularity[v] = sg;
        f->splitRatio[v] = nonEmptyPanels > 0 ? (double)in->split[v].pieces / nonEmptyPanels : 1.0;
    }
}

// ------------------------------------------------------------ CPU reference

// The judge. Accumulates in double; stores want as float plus a tolerance per
// element of C. For C[i][k] = sum over the row's deg entries of a_ij * b_jk:
// whatever order a kernel adds in (a warp's loop, pieces joined by atomics,
// cuSPARSE's own), each product meets at most deg roundings of fp32
// (unit roundoff u = 2^-24), so |error| <= gamma(deg) * sum |a_ij * b_jk|
// with gamma(k) = k u / (1 - k u). Zero padding adds exact zeros and changes
// nothing. deg + 2 leaves room for rounding want itself to float. The tiny
// floor keeps rows whose terms cancel to 0 from needing exactly 0. Written as
// !(err <= tol) at the test, so NaN fails.
static void cpuReference(const Csr* a, const float* denseB, int maxDim, float* want, float* tol) {
    double* acc = (double*)checkedMalloc((size_t)maxDim * sizeof(double));
    double* mag = (double*)checkedMalloc((size_t)maxDim * sizeof(double));
    for (int i = 0; i < a->n; ++i) {
        for (int k = 0; k < maxDim; ++k) {
            acc[k] = 0.0;
            mag[k] = 0.0;
        }
        for (int e = a->rowPtr[i]; e < a->rowPtr[i + 1]; ++e) {
            const double v = a->val[e];
            const float* bRow = denseB + (size_t)a->colIdx[e] * maxDim;
            for (int k = 0; k < maxDim; ++k) {
                const double p = v * (double)bRow[k];
                acc[k] += p;
                mag[k] += fabs(p);
            }
        }
        const double ku = (double)(a->rowPtr[i + 1] - a->rowPtr[i] + 2) * 0x1p-24;
        const double gamma = ku / (1.0 - ku);
        for (int k = 0; k < maxDim; ++k) {
            want[(size_t)i * maxDim + k] = (float)acc[k];
            tol[(size_t)i * maxDim + k] = (float)(gamma * mag[k] + 1e-30);
        }
    }
    free(acc);
    free(mag);
}

// ------------------------------------------------------------------ kernels

// Algorithm 1 of the paper, the baseline everyone writes first: one warp per
// row of A, one lane per column of C, and every lane reads the row's column
// index and value itself (the 32 reads hit one address and are broadcast).
// Extra column strips go to blockIdx.y, so the row is walked once per strip.
// Launch: blockDim.x = 32 * warps, gridDim.x * warps >= n rows,
//         gridDim.y = ceil(dim / 32).
__global__ void spmmBasic(int n, const int* __restrict__ rowPtr, const int* __restrict__ colIdx,
                          const float* __restrict__ val, const float* __restrict__ B, float* __restrict__ C,
                          int dim) {
    const int lane = threadIdx.x % kWarpSize;
    const int row = blockIdx.x * (blockDim.x / kWarpSize) + threadIdx.x / kWarpSize;
    const int col = blockIdx.y * kWarpSize + lane;
    if (row >= n || col >= dim) return;  // no shuffles below, so a lane may leave alone
    float acc = 0.0f;
    for (int e = rowPtr[row]; e < rowPtr[row + 1]; ++e) {
        acc += val[e] * B[(size_t)colIdx[e] * dim + col];
    }
    C[(size_t)row * dim + col] = acc;
}

// The parametric engine. One warp owns one work unit: a panel of V rows
// (S = false) or a piece of one (S = true, TRow names the panel). Lane l
// computes columns base + l + 32 j for j < F, so one warp covers 32 F columns
// and gridDim.y = ceil(dim / 32F) warps share a row; the last may be partly
// idle (the MAC-job gap). Per nonzero vector the warp loads one column index
// and V values and reuses each B element V times (blocking), and each lane
// reuses the index for F elements (coarsening).
//
// The unit's (column, values) are staged 32 at a time: each lane loads one
// vector with coalesced reads, then the warp walks them with shuffles, so A
// is read once per staging pass instead of once per lane per entry.
//
// S = true accumulates with atomics, so C must be zeroed first; the launcher
// does that inside the timed region (cuSPARSE's beta = 0 writes C too).
// Launch: blockDim.x = 32 * W (whole warps), gridDim.x * W >= units,
//         gridDim.y = ceil(dim / (32 F)), dim <= 256.
template <int V, int F, bool S>
__global__ void spmmEngine(int units, const int* __restrict__ unitStart, const int* __restrict__ unitPanel,
                           const int* __restrict__ vecCol, const float* __restrict__ vecVal,
                           const float* __restrict__ B, float* __restrict__ C, int n, int dim) {
    const int lane = threadIdx.x % kWarpSize;
    const int unit = blockIdx.x * (blockDim.x / kWarpSize) + threadIdx.x / kWarpSize;
    if (unit >= units) return;  // unit is the same for the whole warp, so the warp leaves together
    const int colBase = blockIdx.y * (kWarpSize * F) + lane;
    const int begin = unitStart[unit];
    const int end = unitStart[unit + 1];

    float acc[V][F];
#pragma unroll
    for (int k = 0; k < V; ++k) {
#pragma unroll
        for (int j = 0; j < F; ++j) acc[k][j] = 0.0f;
    }

    // snippet: engine-inner-loop
    for (int chunk = begin; chunk < end; chunk += kWarpSize) {
        int myCol = 0;
        float myVal[V];
#pragma unroll
        for (int k = 0; k < V; ++k) myVal[k] = 0.0f;
        if (chunk + lane < end) {
            myCol = vecCol[chunk + lane];
#pragma unroll
            for (int k = 0; k < V; ++k) myVal[k] = vecVal[(size_t)(chunk + lane) * V + k];
        }
        const int staged = min(kWarpSize, end - chunk);  // the same in every lane
#pragma unroll 4
        for (int t = 0; t < staged; ++t) {
            const int col = __shfl_sync(0xffffffffu, myCol, t);
            float a[V];
#pragma unroll
            for (int k = 0; k < V; ++k) a[k] = __shfl_sync(0xffffffffu, myVal[k], t);
            const float* bRow = B + (size_t)col * dim;
#pragma unroll
            for (int j = 0; j < F; ++j) {
                const int c = colBase + kWarpSize * j;
                if (c < dim) {
                    const float b = __ldg(bRow + c);  // one B element feeds V rows
#pragma unroll
                    for (int k = 0; k < V; ++k) acc[k][j] = fmaf(a[k], b, acc[k][j]);
                }
            }
        }
    }
    // end snippet

    const int panel = S ? unitPanel[unit] : unit;
#pragma unroll
    for (int k = 0; k < V; ++k) {
        const int row = panel * V + k;
        if (row >= n) continue;  // the padded row of a last, half-empty panel
#pragma unroll
        for (int j = 0; j < F; ++j) {
            const int c = colBase + kWarpSize * j;
            if (c >= dim) continue;
            if (S) {
                atomicAdd(&C[(size_t)row * dim + c], acc[k][j]);
            } else {
                C[(size_t)row * dim + c] = acc[k][j];
            }
        }
    }
}

typedef void (*EngineKernel)(int, const int*, const int*, const int*, const float*, const float*, float*, int, int);

template <int V, bool S>
static EngineKernel engineForF(int F) {
    switch (F) {
        case 1: return spmmEngine<V, 1, S>;
        case 2: return spmmEngine<V, 2, S>;
        case 3: return spmmEngine<V, 3, S>;
        case 4: return spmmEngine<V, 4, S>;
        case 5: return spmmEngine<V, 5, S>;
        case 6: return spmmEngine<V, 6, S>;
        case 7: return spmmEngine<V, 7, S>;
        case 8: return spmmEngine<V, 8, S>;
        default: return NULL;
    }
}

static EngineKernel engineFor(int V, int F, int S) {
    if (V == 1) return S ? engineForF<1, true>(F) : engineForF<1, false>(F);
    return S ? engineForF<2, true>(F) : engineForF<2, false>(F);
}

// --------------------------------------------------- device side and launches

struct DeviceInput {
    int n;
    int nnz;
    int* rowPtr;
    int* colIdx;
    float* val;
    int panels[2];
    int* panelPtr[2];
    int* vecCol[2];
    float* vecVal[2];
    int pieces[2];
    int* pieceStart[2];
    int* pieceRow[2];
    float* B;  // n x dim, row-major, rewritten for each dim
    float* C;  // n x dim
};

// One launchable variant: an engine configuration, the basic kernel, or a
// cuSPARSE algorithm. timeMs only sees launch(ctx).
struct LaunchCtx {
    const DeviceInput* d;
    int dim;
    Config cfg;
    cusparseHandle_t handle;
    cusparseSpMatDescr_t matA;
    cusparseDnMatDescr_t matB;
    cusparseDnMatDescr_t matC;
    cusparseSpMMAlg_t alg;
    void* buffer;
};

// snippet: launch-engine
static void launchEngine(const void* p) {
    const LaunchCtx* x = (const LaunchCtx*)p;
    const DeviceInput* d = x->d;
    const Config c = x->cfg;
    const int v = c.V - 1;
    const int units = c.S ? d->pieces[v] : d->panels[v];
    const int* unitStart = c.S ? d->pieceStart[v] : d->panelPtr[v];
    const int* unitPanel = c.S ? d->pieceRow[v] : NULL;
    if (c.S) {
        // Pieces add into C, so it starts at zero, every run, inside the timing.
        CUDA_CHECK(cudaMemsetAsync(d->C, 0, (size_t)d->n * x->dim * sizeof(float)));
    }
    if (units == 0) return;
    const dim3 block(kWarpSize * c.W);
    const dim3 grid(ceilDiv(units, c.W), ceilDiv(x->dim, kWarpSize * c.F));
    EngineKernel kernel = engineFor(c.V, c.F, c.S);
    kernel<<<grid, block>>>(units, unitStart, unitPanel, d->vecCol[v], d->vecVal[v], d->B, d->C, d->n, x->dim);
    CUDA_CHECK(cudaGetLastError());
}
// end snippet

static void launchBasic(const void* p) {
    const LaunchCtx* x = (const LaunchCtx*)p;
    const DeviceInput* d = x->d;
    const dim3 block(kWarpSize * kBasicWarpsPerBlock);
    const dim3 grid(ceilDiv(d->n, kBasicWarpsPerBlock), ceilDiv(x->dim, kWarpSize));
    spmmBasic<<<grid, block>>>(d->n, d->rowPtr, d->colIdx, d->val, d->B, d->C, x->dim);
    CUDA_CHECK(cudaGetLastError());
}

static void launchCusparse(const void* p) {
    const LaunchCtx* x = (const LaunchCtx*)p;
    const float alpha = 1.0f;
    const float beta = 0.0f;
    CUSPARSE_CHECK(cusparseSpMM(x->handle, CUSPARSE_OPERATION_NON_TRANSPOSE, CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha,
                                x->matA, x->matB, &beta, x->matC, CUDA_R_32F, x->alg, x->buffer));
}

// Mean milliseconds of one launch: warm THIS launch up first, then time
// kTimedRuns back to back between two events. Nothing else in the window.
static float timeMs(void (*launch)(const void* ctx), const void* ctx) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < kWarmupRuns; ++i) launch(ctx);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaEventRecord(start));
    for (int i = 0; i < kTimedRuns; ++i) launch(ctx);
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaGetLastError());
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms / kTimedRuns;
}

// ------------------------------------------------------------- the checking

// The CPU's answer at the widest dim; C at dim d is its first d columns.
struct Reference {
    int n;
    int maxDim;
    float* want;  // n x maxDim
    float* tol;   // n x maxDim
};

// Compares a kernel's C (n x dim, in host memory) with the reference.
// Returns the number of elements out of tolerance and reports the first.
static long long compareWithReference(const float* got, const Reference* ref, int dim, const char* inputName,
                                      const char* variant) {
    long long bad = 0;
    long long firstBad = -1;
    for (int i = 0; i < ref->n; ++i) {
        const float* g = got + (size_t)i * dim;
        const float* w = ref->want + (size_t)i * ref->maxDim;
        const float* t = ref->tol + (size_t)i * ref->maxDim;
        int rowBad = 0;
        for (int k = 0; k < dim; ++k) rowBad += !(fabsf(g[k] - w[k]) <= t[k]);  // NaN counts as bad
        if (rowBad > 0 && firstBad < 0) {
            for (int k = 0; k < dim && firstBad < 0; ++k) {
                if (!(fabsf(g[k] - w[k]) <= t[k])) firstBad = (long long)i * dim + k;
            }
        }
        bad += rowBad;
    }
    if (bad > 0) {
        const int i = (int)(firstBad / dim);
        const int k = (int)(firstBad % dim);
        fprintf(stderr, "%s dim %d %s: %lld elements wrong; first C[%d][%d] = %.9g, want %.9g (tolerance %.3g)\n",
                inputName, dim, variant, bad, i, k, got[firstBad], ref->want[(size_t)i * ref->maxDim + k],
                ref->tol[(size_t)i * ref->maxDim + k]);
    }
    return bad;
}

// Sum of |C| over the whole matrix. Eight float partial sums per row can be
// vectorized (a single running sum cannot, without reordering); each holds
// at most 32 terms, so its relative error stays under 2^-19.
static double sumAbs(const float* c, int n, int dim, int pitch) {
    double total = 0.0;
    for (int i = 0; i < n; ++i) {
        const float* r = c + (size_t)i * pitch;
        float part[8] = {0, 0, 0, 0, 0, 0, 0, 0};
        int k = 0;
        for (; k + 8 <= dim; k += 8) {
            for (int q = 0; q < 8; ++q) part[q] += fabsf(r[k + q]);
        }
        for (; k < dim; ++k) part[0] += fabsf(r[k]);
        double rowSum = 0.0;
        for (int q = 0; q < 8; ++q) rowSum += part[q];
        total += rowSum;
    }
    return total;
}

// The state of one (input, dim) check, shared by every variant.
struct Judge {
    const Reference* ref;
    const DeviceInput* d;
    float* hostC;     // pinned, n x dim
    double wantAbs;   // sum |want| over C at this dim
    double tolTotal;  // sum of the element tolerances, plus the partial-sum slack
    const char* inputName;
    int dim;
};

// Poison C with NaN, run once, copy back, compare with the CPU. A variant
// that leaves any element unwritten fails here.
static int checkBeforeTiming(const Judge* j, void (*launch)(const void*), const void* ctx, const char* variant) {
    const size_t bytes = (size_t)j->d->n * j->dim * sizeof(float);
    CUDA_CHECK(cudaMemset(j->d->C, 0xff, bytes));
    launch(ctx);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(j->hostC, j->d->C, bytes, cudaMemcpyDeviceToHost));
    return compareWithReference(j->hostC, j->ref, j->dim, j->inputName, variant) == 0;
}

// After timing, C holds the last timed run. Its sum of |C| must still match:
// a variant that accumulated into C without zeroing it between runs shows
// here as kTimedRuns + kWarmupRuns times the right total, though it passed
// the single-run check. (The signed sum could cancel to about 0 and hide it.)
static int checkAfterTiming(const Judge* j, const char* variant) {
    const size_t bytes = (size_t)j->d->n * j->dim * sizeof(float);
    CUDA_CHECK(cudaMemcpy(j->hostC, j->d->C, bytes, cudaMemcpyDeviceToHost));
    const double got = sumAbs(j->hostC, j->d->n, j->dim, j->dim);
    if (!(fabs(got - j->wantAbs) <= j->tolTotal)) {
        fprintf(stderr, "%s dim %d %s: after timing sum |C| = %.9g, want %.9g (tolerance %.3g)\n", j->inputName, j->dim,
                variant, got, j->wantAbs, j->tolTotal);
        return 0;
    }
    return 1;
}

// ------------------------------------------------------------------ reports

static void configName(Config c, char* out, size_t cap) {
    snprintf(out, cap, "W%d F%d V%d S%d", c.W, c.F, c.V, c.S);
}

// The paper's MAC-job gap: with F strips per warp, the warp computing a row's
// last 32F-column segment does (dim mod 32F) columns' work while the others
// do min(dim, 32F); the difference is the gap (0 when 32F divides dim).
// idle counts what the hardware actually leaves unused: lane-columns launched
// beyond dim, per row.
static int macJobGap(int dim, int F) {
    const int tn = dim < kWarpSize * F ? dim : kWarpSize * F;
    const int tr = dim % (kWarpSize * F);
    return tr == 0 ? 0 : tn - tr;
}

static int idleLaneColumns(int dim, int F) { return ceilDiv(dim, kWarpSize * F) * kWarpSize * F - dim; }

static int maxFFor(int dim) { return ceilDiv(dim, kWarpSize); }

static void printInputFacts(const Input* in) {
    const Features* f = &in->f;
    printf("\n%s: %s\n", in->name, in->about);
    printf("  %d rows (%d empty), %d nonzeros\n", f->rows, f->rows - f->nonEmptyRows, f->nnz);
    printf("  degree over non-empty rows: mean %.2f, max %d, coefficient of variation %.2f\n", f->meanDegree,
           f->maxDegree, f->degreeCv);
    printf("  locality: a row spans %.4f of the columns on average (last minus first column, / n)\n",
           f->meanBandwidth / f->rows);
    printf("  PCSR V=1: %d vectors, PR_1 = %.3f; split at SG = %d: %d pieces, SR_1 = %.3f\n", in->blocked[0].vectors,
           f->paddingRatio[0], f->splitGranularity[0], in->split[0].pieces, f->splitRatio[0]);
    printf("  PCSR V=2: %d vectors, PR_2 = %.3f; split at SG = %d: %d pieces, SR_2 = %.3f\n", in->blocked[1].vectors,
           f->paddingRatio[1], f->splitGranularity[1], in->split[1].pieces, f->splitRatio[1]);
}

// ------------------------------------------------------------------- flags

static int parseDimList(const char* text, Options* o) {
    o->dimCount = 0;
    const char* p = text;
    for (;;) {
        const char* comma = strchr(p, ',');
        const size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[32];
        if (len == 0) {
            fprintf(stderr, "flag --dims: empty item in %s\n", text);
            return 0;
        }
        if (len >= sizeof(item)) {
            fprintf(stderr, "flag --dims: %.*s is not a number\n", (int)len, p);
            return 0;
        }
        memcpy(item, p, len);
        item[len] = '\0';
        char* end = NULL;
        errno = 0;
        const long long v = strtoll(item, &end, 10);
        if (end == item || *end != '\0') {
            fprintf(stderr, "flag --dims: %s is not a number\n", item);
            return 0;
        }
        if (errno == ERANGE || v < 1 || v > kMaxDim) {
            fprintf(stderr, "flag --dims: %s is outside 1..%d\n", item, kMaxDim);
            return 0;
        }
        for (int i = 0; i < o->dimCount; ++i) {
            if (o->dims[i] == (int)v) {
                fprintf(stderr, "flag --dims: %s appears twice\n", item);
                return 0;
            }
        }
        if (o->dimCount == kMaxDims) {
            fprintf(stderr, "flag --dims: more than %d dims\n", kMaxDims);
            return 0;
        }
        o->dims[o->dimCount++] = (int)v;
        if (!comma) break;
        p = comma + 1;
    }
    return 1;
}

static int parseFlags(int argc, char** argv, Options* o) {
    memset(o, 0, sizeof(*o));
    o->kronScale = -1;
    o->paths = (char**)checkedMalloc((size_t)argc * sizeof(char*));
    int dimsGiven = 0;
    int allDims = 0;
    for (int i = 1; i < argc; ++i) {
        const char* arg = argv[i];
        if (strcmp(arg, "--small") == 0) {
            o->small = 1;
        } else if (strcmp(arg, "--all-dims") == 0) {
            allDims = 1;
        } else if (strcmp(arg, "--dims") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "flag --dims: needs a value, e.g. --dims 16,64\n");
                return 0;
            }
            if (!parseDimList(argv[++i], o)) return 0;
            dimsGiven = 1;
        } else if (strcmp(arg, "--kron-scale") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "flag --kron-scale: needs a value from %d to %d\n", kKronScaleMin, kKronScaleMax);
                return 0;
            }
            const char* text = argv[++i];
            long long v = 0;
            if (!parseLongLong(text, &v)) {
                fprintf(stderr, "flag --kron-scale: %s is not a number\n", text);
                return 0;
            }
            if (v < kKronScaleMin || v > kKronScaleMax) {
                fprintf(stderr, "flag --kron-scale: %s is outside %d..%d\n", text, kKronScaleMin, kKronScaleMax);
                return 0;
            }
            o->kronScale = (int)v;
        } else if (arg[0] == '-' && arg[1] != '\0') {
            fprintf(stderr, "flag %s: unknown (flags: --small --all-dims --dims LIST --kron-scale S)\n", arg);
            return 0;
        } else {
            o->paths[o->pathCount++] = argv[i];
        }
    }
    if (allDims && dimsGiven) {
        fprintf(stderr, "flag --all-dims: cannot be combined with --dims\n");
        return 0;
    }
    if (o->kronScale >= 0 && (o->small || o->pathCount > 0)) {
        fprintf(stderr, "flag --kron-scale: only for the default inputs (not with --small or files)\n");
        return 0;
    }
    if (allDims) {
        o->dimCount = 0;
        for (int d = 16; d <= kMaxDim; d += 16) o->dims[o->dimCount++] = d;
    } else if (!dimsGiven) {
        const int* list = o->small ? kSmallDims : kDefaultDims;
        const int count = o->small ? (int)(sizeof(kSmallDims) / sizeof(int)) : (int)(sizeof(kDefaultDims) / sizeof(int));
        for (int i = 0; i < count; ++i) o->dims[i] = list[i];
        o->dimCount = count;
    }
    if (o->kronScale < 0) o->kronScale = o->small ? kKronScaleSmall : kKronScaleDefault;
    return 1;
}

// ----------------------------------------------------------- the GPU sweep

// Per (input, dim): the result of every configuration, kept so that the
// tables at the end (and a decider, later) can read the whole space.
struct DimResult {
    int dim;
    int configCount;
    Config configs[4 * kMaxF * 2 * 2];
    float ms[4 * kMaxF * 2 * 2];  // 0 when the configuration failed its check
    float cusparseMs;             // the faster algorithm, 0 when both failed
    float cusparseAlgMs[2];       // DEFAULT, CSR_ALG2
    float basicMs;
    int best;
    int worst;
    int defaultIndex;
};

static const char* kCusparseAlgNames[2] = {"DEFAULT", "CSR_ALG2"};

static void uploadInput(const Input* in, DeviceInput* d, int maxDim) {
    memset(d, 0, sizeof(*d));
    const Csr* a = &in->a;
    d->n = a->n;
    d->nnz = a->nnz;
    CUDA_CHECK(cudaMalloc(&d->rowPtr, (size_t)(a->n + 1) * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d->colIdx, (size_t)a->nnz * sizeof(int)));
    CUDA_CHECK(cudaMalloc(&d->val, (size_t)a->nnz * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(d->rowPtr, a->rowPtr, (size_t)(a->n + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->colIdx, a->colIdx, (size_t)a->nnz * sizeof(int), cudaMemcpyHostToDevice));
    CUDA_CHECK(cudaMemcpy(d->val, a->val, (size_t)a->nnz * sizeof(float), cudaMemcpyHostToDevice));
    for (int v = 0; v < 2; ++v) {
        const Blocked* b = &in->blocked[v];
        const Split* s = &in->split[v];
        d->panels[v] = b->panels;
        d->pieces[v] = s->pieces;
        CUDA_CHECK(cudaMalloc(&d->panelPtr[v], (size_t)(b->panels + 1) * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d->vecCol[v], (size_t)b->vectors * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d->vecVal[v], (size_t)b->vectors * (v + 1) * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&d->pieceStart[v], (size_t)(s->pieces + 1) * sizeof(int)));
        CUDA_CHECK(cudaMalloc(&d->pieceRow[v], (size_t)(s->pieces > 0 ? s->pieces : 1) * sizeof(int)));
        CUDA_CHECK(cudaMemcpy(d->panelPtr[v], b->panelPtr, (size_t)(b->panels + 1) * sizeof(int), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d->vecCol[v], b->vecCol, (size_t)b->vectors * sizeof(int), cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d->vecVal[v], b->vecVal, (size_t)b->vectors * (v + 1) * sizeof(float),
                              cudaMemcpyHostToDevice));
        CUDA_CHECK(cudaMemcpy(d->pieceStart[v], s->pieceStart, (size_t)(s->pieces + 1) * sizeof(int),
                              cudaMemcpyHostToDevice));
        if (s->pieces > 0) {
            CUDA_CHECK(cudaMemcpy(d->pieceRow[v], s->pieceRow, (size_t)s->pieces * sizeof(int), cudaMemcpyHostToDevice));
        }
    }
    CUDA_CHECK(cudaMalloc(&d->B, (size_t)a->n * maxDim * sizeof(float)));
    CUDA_CHECK(cudaMalloc(&d->C, (size_t)a->n * maxDim * sizeof(float)));
}

static void freeDeviceInput(DeviceInput* d) {
    CUDA_CHECK(cudaFree(d->rowPtr));
    CUDA_CHECK(cudaFree(d->colIdx));
    CUDA_CHECK(cudaFree(d->val));
    for (int v = 0; v < 2; ++v) {
        CUDA_CHECK(cudaFree(d->panelPtr[v]));
        CUDA_CHECK(cudaFree(d->vecCol[v]));
        CUDA_CHECK(cudaFree(d->vecVal[v]));
        CUDA_CHECK(cudaFree(d->pieceStart[v]));
        CUDA_CHECK(cudaFree(d->pieceRow[v]));
    }
    CUDA_CHECK(cudaFree(d->B));
    CUDA_CHECK(cudaFree(d->C));
}

static int buildConfigs(int dim, const Options* o, Config* out) {
    const int* warps = o->small ? kSmallWarpChoices : kWarpChoices;
    const int warpCount = o->small ? (int)(sizeof(kSmallWarpChoices) / sizeof(int))
                                   : (int)(sizeof(kWarpChoices) / sizeof(int));
    int count = 0;
    for (int V = 1; V <= 2; ++V) {
        for (int S = 0; S <= 1; ++S) {
            for (int F = 1; F <= maxFFor(dim); ++F) {
                for (int w = 0; w < warpCount; ++w) {
                    Config c = {warps[w], F, V, S};
                    out[count++] = c;
                }
            }
        }
    }
    return count;
}

// Checks and times everything at one dim. Returns the number of failures.
static int sweepDim(const Input* in, const Reference* ref, DeviceInput* d, const float* denseBMax, float* hostB,
                    float* hostC, cusparseHandle_t handle, cusparseSpMatDescr_t matA, const Options* o, int dim,
                    DimResult* r) {
    int failures = 0;
    const int n = in->a.n;
    memset(r, 0, sizeof(*r));
    r->dim = dim;
    r->configCount = buildConfigs(dim, o, r->configs);
    r->best = -1;
    r->worst = -1;
    r->defaultIndex = -1;
    printf("%s dim %d: sweeping %d configurations, the basic kernel and cuSPARSE; work per SpMM: 2 nnz dim = %.4f "
           "GFLOP useful, %.4f issued at V=2 (padding)\n",
           in->name, dim, r->configCount, 2.0 * in->a.nnz * dim * 1e-9, 2.0 * 2.0 * in->blocked[1].vectors * dim * 1e-9);
    fflush(stdout);

    // B at this dim: the first dim columns of the widest B.
    for (int i = 0; i < n; ++i) {
        memcpy(hostB + (size_t)i * dim, denseBMax + (size_t)i * ref->maxDim, (size_t)dim * sizeof(float));
    }
    CUDA_CHECK(cudaMemcpy(d->B, hostB, (size_t)n * dim * sizeof(float), cudaMemcpyHostToDevice));

    Judge judge;
    judge.ref = ref;
    judge.d = d;
    judge.hostC = hostC;
    judge.inputName = in->name;
    judge.dim = dim;
    judge.wantAbs = sumAbs(ref->want, n, dim, ref->maxDim);
    double tolSum = 0.0;
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < dim; ++k) tolSum += ref->tol[(size_t)i * ref->maxDim + k];
    }
    judge.tolTotal = tolSum + 0x1p-18 * judge.wantAbs;  // + the slack of two sumAbs calls

    LaunchCtx ctx;
    memset(&ctx, 0, sizeof(ctx));
    ctx.d = d;
    ctx.dim = dim;

    // cuSPARSE, both algorithms; the faster one is the baseline.
    ctx.handle = handle;
    ctx.matA = matA;
    CUSPARSE_CHECK(cusparseCreateDnMat(&ctx.matB, n, dim, dim, d->B, CUDA_R_32F, CUSPARSE_ORDER_ROW));
    CUSPARSE_CHECK(cusparseCreateDnMat(&ctx.matC, n, dim, dim, d->C, CUDA_R_32F, CUSPARSE_ORDER_ROW));
    const cusparseSpMMAlg_t algs[2] = {CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG2};
    for (int k = 0; k < 2; ++k) {
        const float alpha = 1.0f;
        const float beta = 0.0f;
        size_t bytes = 0;
        ctx.alg = algs[k];
        CUSPARSE_CHECK(cusparseSpMM_bufferSize(handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                               CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, ctx.matB, &beta,
                                               ctx.matC, CUDA_R_32F, ctx.alg, &bytes));
        ctx.buffer = NULL;
        if (bytes > 0) CUDA_CHECK(cudaMalloc(&ctx.buffer, bytes));
        char variant[48];
        snprintf(variant, sizeof(variant), "cuSPARSE %s", kCusparseAlgNames[k]);
        if (checkBeforeTiming(&judge, launchCusparse, &ctx, variant)) {
            r->cusparseAlgMs[k] = timeMs(launchCusparse, &ctx);
            if (!checkAfterTiming(&judge, variant)) {
                ++failures;
                r->cusparseAlgMs[k] = 0.0f;
            }
        } else {
            ++failures;
        }
        CUDA_CHECK(cudaFree(ctx.buffer));
        ctx.buffer = NULL;
    }
    CUSPARSE_CHECK(cusparseDestroyDnMat(ctx.matB));
    CUSPARSE_CHECK(cusparseDestroyDnMat(ctx.matC));
    for (int k = 0; k < 2; ++k) {
        if (r->cusparseAlgMs[k] > 0.0f && (r->cusparseMs == 0.0f || r->cusparseAlgMs[k] < r->cusparseMs)) {
            r->cusparseMs = r->cusparseAlgMs[k];
        }
    }

    if (checkBeforeTiming(&judge, launchBasic, &ctx, "basic")) {
        r->basicMs = timeMs(launchBasic, &ctx);
        if (!checkAfterTiming(&judge, "basic")) {
            ++failures;
            r->basicMs = 0.0f;
        }
    } else {
        ++failures;
    }

    int passed = 0;
    for (int c = 0; c < r->configCount; ++c) {
        char variant[32];
        configName(r->configs[c], variant, sizeof(variant));
        ctx.cfg = r->configs[c];
        r->ms[c] = 0.0f;
        if (checkBeforeTiming(&judge, launchEngine, &ctx, variant)) {
            const float ms = timeMs(launchEngine, &ctx);
            if (checkAfterTiming(&judge, variant)) {
                r->ms[c] = ms;
                ++passed;
            } else {
                ++failures;
            }
        } else {
            ++failures;
        }
        const Config x = r->configs[c];
        if (x.W == kDefaultW && x.F == kDefaultF && x.V == kDefaultV && x.S == kDefaultS) r->defaultIndex = c;
        if (r->ms[c] > 0.0f) {
            if (r->best < 0 || r->ms[c] < r->ms[r->best]) r->best = c;
            if (r->worst < 0 || r->ms[c] > r->ms[r->worst]) r->worst = c;
        }
    }
    const int basicOk = r->basicMs > 0.0f;
    const int cusparseOk = (r->cusparseAlgMs[0] > 0.0f) + (r->cusparseAlgMs[1] > 0.0f);
    if (failures == 0) {
        printf("  all %d configurations, the basic kernel and both cuSPARSE algorithms match the CPU on %lld "
               "elements, before and after timing\n",
               r->configCount, (long long)n * dim);
    } else {
        printf("  %d of %d configurations, %d of 1 basic, %d of 2 cuSPARSE match the CPU (%d failures, see stderr)\n",
               passed, r->configCount, basicOk, cusparseOk, failures);
    }
    return failures;
}

static double gflops(long long nnz, int dim, float ms) { return ms > 0.0f ? 2.0 * nnz * dim / (ms * 1e6) : 0.0; }

// One row of an input's table: GFLOP/s of each variant, the configurations
// that timing picked in braces, then speedups over the faster cuSPARSE.
static void printDimRow(const Input* in, const DimResult* r) {
    const long long nnz = in->a.nnz;
    const int dim = r->dim;
    char best[32] = "none", worst[32] = "none";
    if (r->best >= 0) configName(r->configs[r->best], best, sizeof(best));
    if (r->worst >= 0) configName(r->configs[r->worst], worst, sizeof(worst));
    const int alg = r->cusparseAlgMs[1] > 0.0f && r->cusparseAlgMs[1] == r->cusparseMs ? 1 : 0;
    const float base = r->cusparseMs;
    const float bestMs = r->best >= 0 ? r->ms[r->best] : 0.0f;
    const float worstMs = r->worst >= 0 ? r->ms[r->worst] : 0.0f;
    const float defaultMs = r->defaultIndex >= 0 ? r->ms[r->defaultIndex] : 0.0f;
    printf("~ %4d %8.1f {%-8s} %8.1f %8.1f %8.1f %8.1f {%-11s} %8.1f {%-11s} %5.2f %5.2f %5.2f\n", dim,
           gflops(nnz, dim, base), kCusparseAlgNames[alg], gflops(nnz, dim, r->cusparseAlgMs[1 - alg]),
           gflops(nnz, dim, r->basicMs), gflops(nnz, dim, defaultMs), gflops(nnz, dim, bestMs), best,
           gflops(nnz, dim, worstMs), worst, base > 0 && r->basicMs > 0 ? base / r->basicMs : 0.0,
           base > 0 && defaultMs > 0 ? base / defaultMs : 0.0, base > 0 && bestMs > 0 ? base / bestMs : 0.0);
}

// The best time among the configurations whose parameter `which` (0 W, 1 F,
// 2 V, 3 S) equals value; 0 when none.
static float bestWith(const DimResult* r, int which, int value) {
    float best = 0.0f;
    for (int c = 0; c < r->configCount; ++c) {
        const Config x = r->configs[c];
        const int v = which == 0 ? x.W : which == 1 ? x.F : which == 2 ? x.V : x.S;
        if (v == value && r->ms[c] > 0.0f && (best == 0.0f || r->ms[c] < best)) best = r->ms[c];
    }
    return best;
}

// How much a parameter matters at one (input, dim): the best time with the
// parameter at its worst value (the others re-tuned) over the best time.
static double sensitivity(const DimResult* r, int which) {
    float lo = 0.0f, hi = 0.0f;
    for (int value = 0; value <= 8; ++value) {
        const float t = bestWith(r, which, value);
        if (t <= 0.0f) continue;
        if (lo == 0.0f || t < lo) lo = t;
        if (t > hi) hi = t;
    }
    return lo > 0.0f ? hi / lo : 1.0;
}

// ------------------------------------------------------------------- main

static int loadInputs(const Options* o, Input* inputs, int* count) {
    *count = 0;
    if (o->pathCount > 0) {
        for (int p = 0; p < o->pathCount; ++p) {
            Input* in = &inputs[(*count)];
            memset(in, 0, sizeof(*in));
            if (!loadMatrixMarket(o->paths[p], &in->a)) return 0;
            ++*count;
            const char* base = strrchr(o->paths[p], '/');
            snprintf(in->name, sizeof(in->name), "%s", base ? base + 1 : o->paths[p]);
            snprintf(in->about, sizeof(in->about), "Matrix Market file %s", o->paths[p]);
        }
        return 1;
    }
    Input* in = &inputs[0];
    memset(in, 0, sizeof(*in));
    if (!loadMatrixMarket(kDataPath, &in->a)) return 0;
    ++*count;
    snprintf(in->name, sizeof(in->name), "words");
    snprintf(in->about, sizeof(in->about), "%s, CUDA documentation word graph, ids in alphabetical order", kDataPath);

    in = &inputs[(*count)++];
    memset(in, 0, sizeof(*in));
    generateKronecker(o->kronScale, &in->a);
    snprintf(in->name, sizeof(in->name), "kron-%d", o->kronScale);
    snprintf(in->about, sizeof(in->about), "Graph500 Kronecker, scale %d, edge factor %d, ids shuffled", o->kronScale,
             kKronEdgeFactor);

    const int meshSide = o->small ? kMeshSideSmall : kMeshSide;
    in = &inputs[(*count)++];
    memset(in, 0, sizeof(*in));
    generateMesh3d(meshSide, &in->a);
    snprintf(in->name, sizeof(in->name), "mesh3d-%d", meshSide);
    snprintf(in->about, sizeof(in->about), "27-point stencil on a %d^3 grid, diagonal included, ids row-major",
             meshSide);

    const int communityN = o->small ? kCommunityVerticesSmall : kCommunityVertices;
    in = &inputs[(*count)++];
    memset(in, 0, sizeof(*in));
    generateCommunity(communityN, &in->a);
    snprintf(in->name, sizeof(in->name), "community");
    snprintf(in->about, sizeof(in->about),
             "%d vertices in clusters of %d..%d consecutive ids, pairs inside joined at p = %.1f, %d random edges each",
             communityN, kCommunityMinSize, kCommunityMaxSize, kCommunityInside, kCommunityOutside);

    const int roadSide = o->small ? kRoadSideSmall : kRoadSide;
    in = &inputs[(*count)++];
    memset(in, 0, sizeof(*in));
    generateRoad(roadSide, &in->a);
    snprintf(in->name, sizeof(in->name), "road-%d", roadSide);
    snprintf(in->about, sizeof(in->about), "%d x %d grid keeping %.0f%% of its edges, ids row-major", roadSide,
             roadSide, 100.0 * kRoadKeep);
    return 1;
}

static void printGapTable(const Options* o) {
    int maxF = 1;
    for (int i = 0; i < o->dimCount; ++i) {
        if (maxFFor(o->dims[i]) > maxF) maxF = maxFFor(o->dims[i]);
    }
    printf("\nThe MAC-job gap (paper, eq. 1) and idle lane-columns per row, for each F allowed at each dim\n");
    printf("  %-6s", "F");
    for (int i = 0; i < o->dimCount; ++i) printf(" %9d", o->dims[i]);
    printf("\n");
    for (int F = 1; F <= maxF; ++F) {
        printf("  F=%-4d", F);
        for (int i = 0; i < o->dimCount; ++i) {
            const int dim = o->dims[i];
            if (F > maxFFor(dim)) {
                printf(" %9s", "-");
            } else {
                char cell[24];
                snprintf(cell, sizeof(cell), "%d/%d", macJobGap(dim, F), idleLaneColumns(dim, F));
                printf(" %9s", cell);
            }
        }
        printf("\n");
    }
    printf("  (gap/idle; '-' where F > ceil(dim/32))\n");
}

int main(int argc, char** argv) {
    Options o;
    if (!parseFlags(argc, argv, &o)) {
        free(o.paths);
        return EXIT_FAILURE;
    }
    const int inputCap = o.pathCount > 0 ? o.pathCount : 5;
    Input* inputs = (Input*)checkedMalloc((size_t)inputCap * sizeof(Input));
    memset(inputs, 0, (size_t)inputCap * sizeof(Input));
    int inputCount = 0;
    if (!loadInputs(&o, inputs, &inputCount)) {
        for (int i = 0; i < inputCount; ++i) freeInput(&inputs[i]);
        free(inputs);
        free(o.paths);
        return EXIT_FAILURE;
    }
    int maxDim = 0;
    for (int i = 0; i < o.dimCount; ++i) maxDim = o.dims[i] > maxDim ? o.dims[i] : maxDim;

    // ---------------------------------------------------------- host part
    printf("SpMM C = A * B with a parametric kernel: W warps per block, F strips per lane, V rows per vector,\n");
    printf("S rows split into pieces. %d inputs; dims", inputCount);
    for (int i = 0; i < o.dimCount; ++i) printf(" %d", o.dims[i]);
    printf(".%s\n", o.small ? " Small run: W in {1, 4} only, for sanitizer speed." : "");
    for (int i = 0; i < inputCount; ++i) {
        analyseInput(&inputs[i]);
        printInputFacts(&inputs[i]);
    }
    printGapTable(&o);
    printf("\nEveryone's default configuration: W%d F%d V%d S%d (one warp per row, one 32-column strip per warp)\n",
           kDefaultW, kDefaultF, kDefaultV, kDefaultS);
    printf("Each configuration, the basic kernel and cuSPARSE: C poisoned with NaN, one run checked against the CPU,\n");
    printf("%d warm-up runs, mean of %d timed runs, then sum |C| checked again.\n", kWarmupRuns, kTimedRuns);
    fflush(stdout);

    // ---------------------------------------------------------- device check
    int deviceCount = 0;
    const cudaError_t probe = cudaGetDeviceCount(&deviceCount);
    if (probe != cudaSuccess || deviceCount == 0) {
        printf("no CUDA device found (%s): the host part above ran, the GPU part did not\n",
               probe != cudaSuccess ? cudaGetErrorString(probe) : "0 devices");
        for (int i = 0; i < inputCount; ++i) freeInput(&inputs[i]);
        free(inputs);
        free(o.paths);
        return 2;
    }

    // ---------------------------------------------------------- GPU part
    cudaDeviceProp prop;
    CUDA_CHECK(cudaGetDeviceProperties(&prop, 0));
    int driver = 0, runtime = 0;
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    printf("\n~ GPU: {%s}, compute capability %d.%d, %d SMs, {driver %d.%d, runtime %d.%d}\n", prop.name, prop.major,
           prop.minor, prop.multiProcessorCount, driver / 1000, (driver % 1000) / 10, runtime / 1000,
           (runtime % 1000) / 10);
    cusparseHandle_t handle;
    CUSPARSE_CHECK(cusparseCreate(&handle));

    int failures = 0;
    DimResult* results = (DimResult*)checkedMalloc((size_t)inputCount * o.dimCount * sizeof(DimResult));
    for (int ii = 0; ii < inputCount; ++ii) {
        const Input* in = &inputs[ii];
        const int n = in->a.n;
        printf("\n== %s ==\n", in->name);
        // The reference is large (n x widest dim, twice), so it is built here,
        // beside its checks, one input at a time.
        float* denseBMax = (float*)checkedMalloc((size_t)n * maxDim * sizeof(float));
        for (int i = 0; i < n; ++i) {
            for (int k = 0; k < maxDim; ++k) denseBMax[(size_t)i * maxDim + k] = denseValue(i, k);
        }
        Reference ref;
        ref.n = n;
        ref.maxDim = maxDim;
        ref.want = (float*)checkedMalloc((size_t)n * maxDim * sizeof(float));
        ref.tol = (float*)checkedMalloc((size_t)n * maxDim * sizeof(float));
        cpuReference(&in->a, denseBMax, maxDim, ref.want, ref.tol);
        printf("CPU reference: %d x %d in double, sum |C| = %.6e; narrower dims use its first columns\n", n, maxDim,
               sumAbs(ref.want, n, maxDim, maxDim));

        DeviceInput d;
        uploadInput(in, &d, maxDim);
        float* hostB = (float*)checkedMalloc((size_t)n * maxDim * sizeof(float));
        float* hostC = NULL;
        CUDA_CHECK(cudaMallocHost(&hostC, (size_t)n * maxDim * sizeof(float)));
        cusparseSpMatDescr_t matA;
        CUSPARSE_CHECK(cusparseCreateCsr(&matA, n, n, in->a.nnz, d.rowPtr, d.colIdx, d.val, CUSPARSE_INDEX_32I,
                                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
        for (int di = 0; di < o.dimCount; ++di) {
            failures += sweepDim(in, &ref, &d, denseBMax, hostB, hostC, handle, matA, &o, o.dims[di],
                                 &results[ii * o.dimCount + di]);
        }
        CUSPARSE_CHECK(cusparseDestroySpMat(matA));
        CUDA_CHECK(cudaFreeHost(hostC));
        free(hostB);
        freeDeviceInput(&d);
        free(ref.want);
        free(ref.tol);
        free(denseBMax);

        printf("GFLOP/s = 2 nnz dim / time, nnz = %d; the last three columns are speedups over the faster cuSPARSE\n",
               in->a.nnz);
        printf("  %4s %8s %-10s %8s %8s %8s %8s %-13s %8s %-13s %5s %5s %5s\n", "dim", "cuSPARSE", "{faster}",
               "other", "basic", "default", "best", "{config}", "worst", "{config}", "basic", "dflt", "best");
        for (int di = 0; di < o.dimCount; ++di) printDimRow(in, &results[ii * o.dimCount + di]);
        fflush(stdout);
    }
    CUSPARSE_CHECK(cusparseDestroy(handle));

    // ------------------------------------------------------- the summaries
    printf("\nBest configuration over cuSPARSE (the oracle: the whole space measured, the fastest kept)\n");
    printf("  %-14s", "input");
    for (int di = 0; di < o.dimCount; ++di) printf(" %6d", o.dims[di]);
    printf("\n");
    double logSum = 0.0;
    int logCount = 0;
    double minSpeedup = 0.0;
    for (int ii = 0; ii < inputCount; ++ii) {
        printf("~ %-14s", inputs[ii].name);
        for (int di = 0; di < o.dimCount; ++di) {
            const DimResult* r = &results[ii * o.dimCount + di];
            const double s = r->best >= 0 && r->cusparseMs > 0 ? r->cusparseMs / r->ms[r->best] : 0.0;
            printf(" %6.2f", s);
            if (s > 0.0) {
                logSum += log(s);
                ++logCount;
                if (minSpeedup == 0.0 || s < minSpeedup) minSpeedup = s;
            }
        }
        printf("\n");
    }
    printf("plotspec: speedup-per-dim | line | Best configuration over cuSPARSE | dim | speedup over cuSPARSE\n");
    for (int ii = 0; ii < inputCount; ++ii) {
        for (int di = 0; di < o.dimCount; ++di) {
            const DimResult* r = &results[ii * o.dimCount + di];
            if (r->best >= 0 && r->cusparseMs > 0) {
                printf("~ plot: speedup-per-dim | %s | %d | %.3f\n", inputs[ii].name, r->dim,
                       r->cusparseMs / r->ms[r->best]);
            }
        }
    }

    // Table 2 of the paper for F: at each dim, on how many inputs each F wins.
    printf("\nWhich F wins at each dim: inputs won, of %d (the paper's Table 2)\n", inputCount);
    printf("  %-6s", "F");
    for (int di = 0; di < o.dimCount; ++di) printf(" %6d", o.dims[di]);
    printf("\n");
    int maxF = 1;
    for (int di = 0; di < o.dimCount; ++di) maxF = maxFFor(o.dims[di]) > maxF ? maxFFor(o.dims[di]) : maxF;
    for (int F = 1; F <= maxF; ++F) {
        printf("~ F=%-4d", F);
        for (int di = 0; di < o.dimCount; ++di) {
            if (F > maxFFor(o.dims[di])) {
                printf(" %6s", "-");
                continue;
            }
            int wins = 0;
            for (int ii = 0; ii < inputCount; ++ii) {
                const DimResult* r = &results[ii * o.dimCount + di];
                wins += r->best >= 0 && r->configs[r->best].F == F;
            }
            printf(" %6d", wins);
        }
        printf("\n");
    }

    printf("\nWhich W, V and S win on each input: dims won, of %d\n", o.dimCount);
    printf("  %-14s %4s %4s %4s %4s   %4s %4s   %4s %4s\n", "input", "W1", "W2", "W4", "W8", "V1", "V2", "S0", "S1");
    for (int ii = 0; ii < inputCount; ++ii) {
        int w[4] = {0, 0, 0, 0}, v[2] = {0, 0}, s[2] = {0, 0};
        for (int di = 0; di < o.dimCount; ++di) {
            const DimResult* r = &results[ii * o.dimCount + di];
            if (r->best < 0) continue;
            const Config c = r->configs[r->best];
            for (int k = 0; k < 4; ++k) w[k] += c.W == kWarpChoices[k];
            ++v[c.V - 1];
            ++s[c.S];
        }
        printf("~ %-14s %4d %4d %4d %4d   %4d %4d   %4d %4d\n", inputs[ii].name, w[0], w[1], w[2], w[3], v[0], v[1],
               s[0], s[1]);
    }

    printf("\nHow much each parameter matters: best time with it at its worst value (others re-tuned)\n");
    printf("over the best time, geometric mean over dims (1.00 = the parameter does not matter)\n");
    printf("  %-14s %6s %6s %6s %6s\n", "input", "W", "F", "V", "S");
    for (int ii = 0; ii < inputCount; ++ii) {
        double logs[4] = {0, 0, 0, 0};
        for (int di = 0; di < o.dimCount; ++di) {
            for (int which = 0; which < 4; ++which) logs[which] += log(sensitivity(&results[ii * o.dimCount + di], which));
        }
        printf("~ %-14s %6.2f %6.2f %6.2f %6.2f\n", inputs[ii].name, exp(logs[0] / o.dimCount),
               exp(logs[1] / o.dimCount), exp(logs[2] / o.dimCount), exp(logs[3] / o.dimCount));
    }

    const double geomean = logCount > 0 ? exp(logSum / logCount) : 0.0;
    printf("\n~ goal: best configuration >= 1.5x cuSPARSE, geometric mean over inputs x dims: {%s}\n",
           geomean >= 1.5 ? "met" : "missed");
    printf("~ goal: never below 0.9x cuSPARSE on any (input, dim): {%s}\n", minSpeedup >= 0.9 ? "met" : "missed");
    printf("headline: oracle_vs_cusparse_geomean = %.2f\n", geomean);
    printf("headline: oracle_vs_cusparse_min = %.2f\n", minSpeedup);

    free(results);
    for (int i = 0; i < inputCount; ++i) freeInput(&inputs[i]);
    free(inputs);
    free(o.paths);
    if (failures > 0) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        printf("FAIL\n");
        return EXIT_FAILURE;
    }
    printf("PASS\n");
    return EXIT_SUCCESS;
}
