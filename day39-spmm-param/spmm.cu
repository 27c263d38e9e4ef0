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
//   community-shuffled  the community graph with its ids shuffled: the
//              locality is still there, but hidden, for a reordering to find
// and dim goes from 16 to 256, the widths of GNN layers.
//
// Part 2 answers the paper's second half. (1) Fifteen features of A, all
// counted on the host. (2) A decider: one small decision tree per dim,
// learned by --train from a family of generated graphs that are not the
// inputs above, saved in decider-model.txt, and judged here against the
// sweep (the oracle) and against a seeded random configuration. (3) A
// reordering (reverse Cuthill-McKee) of the inputs whose ids are scattered,
// swept again. (4) A two-layer GCN forward pass whose aggregations run on
// cuSPARSE in one run and on the decider's configuration in the other, with
// cuBLAS for the dense transforms.
//
// Build: nvcc -O3 -arch=sm_90 -o spmm spmm.cu -lcusparse -lcublas
// Train: ./spmm --train
// Run:   ./spmm                      6 inputs, 3 reordered; dims 16..256 x2
//        ./spmm --train              sweep the training family, fit and write the model
//        ./spmm --model PATH         read (or, with --train, write) PATH instead
//                                    of decider-model.txt
//        ./spmm --all-dims           dims 16, 32, ..., 256 as the paper sweeps
//                                    (needs a model trained with --all-dims)
//        ./spmm --dims 48,96         any dims from 1 to 256 (the model must have them)
//        ./spmm --kron-scale 20      a bigger (or smaller) Kronecker graph
//        ./spmm --small              tiny inputs, dims 16 and 48, W in {1, 4}, a
//                                    built-in model (for compute-sanitizer)
//        ./spmm A.mtx [B.mtx ...]    your own square Matrix Market matrices
// Run it from this folder: it opens cuda-words.mtx and decider-model.txt by
// relative paths.
//
// Transcripts: the newest evidence/run-*.txt (default run) and
// evidence/train-*.txt (the training run that wrote decider-model.txt).

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cublas_v2.h>
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

// Training sweeps ~30 graphs at every dim and only needs the ranking of
// configurations, not a publishable time: one warm-up after the check run
// and three timed runs keep the whole of --train near two minutes.
static const int kTrainWarmupRuns = 1;
static const int kTrainTimedRuns = 3;

// The decider. One CART tree per dim over the 15 features; depth 4 gives at
// most 16 leaves, few enough to print and read, and a leaf needs 3 training
// graphs so that no leaf is one graph's private answer.
static const int kFeatureCount = 15;
static const int kTreeDepth = 4;
static const int kMinLeafSamples = 3;
static const double kPerfFloor = 1e-3;      // a failed configuration, in the tree's log sums
static const int kMaxTreeNodes = 63;  // what a model file may hold: depth 5, fully grown
static const int kModelFormatVersion = 1;
static const char* kDefaultModelPath = "decider-model.txt";
// Table 5's baseline: a configuration drawn uniformly from the sweep's space
// at each (input, dim), from this seed, so the "random" column is repeatable.
static const uint64_t kSeedRandomConfig = 42;

// Reordering. The reordered copies are swept at the run's first three dims
// only (16, 32, 64 by default, the narrow widths where the paper's Table 6
// gains most): a full second sweep of three inputs would push the default run
// past three minutes, and the wide dims are bound by B's bandwidth anyway.
static const int kReorderDims = 3;
static const uint64_t kSeedShuffle = 0x73687566666c6564ull;

// The GCN: 256 input features -> 64 hidden -> 16 classes, two layers, each
// H' = A (H W): transform first, so the SpMM runs at the narrow output width
// (64, then 16), where the engine gains most over cuSPARSE, and the sparse
// product is the bigger share of each layer. --small uses 64 -> 48 -> 16 so
// that its aggregations run at the small run's dims.
static const int kGcnIn = 256;
static const int kGcnHidden = 64;
static const int kGcnClasses = 16;
static const int kGcnInSmall = 64;
static const int kGcnHiddenSmall = 48;
static const uint64_t kSeedWeights = 0x7765696768747339ull;

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

// The training family's sizes, and where its seeds start: every training
// graph's seed is kSeedTrain plus its index, never one of the seeds above, so
// no evaluation input is in the training set.
static const uint64_t kSeedTrain = 0x747261696e696e67ull;

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

#define CUBLAS_CHECK(call)                                                 \
    do {                                                                   \
        cublasStatus_t status_ = (call);                                   \
        if (status_ != CUBLAS_STATUS_SUCCESS) {                            \
            fprintf(stderr, "%s:%d: %s failed: cuBLAS status %d\n",        \
                    __FILE__, __LINE__, #call, (int)status_);              \
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

// What the paper's decider reads (its Table 3), counted once per input on the
// host, before any CUDA call. The 15 features are the fields from rows to
// splitRatio; paddingRatio[0] (PR_1) is printed but is 0 by definition, so it
// is not one of them. maxDegree and splitGranularity are kept for the report.
struct Features {
    int rows;                // n
    int nonEmptyRows;        // n-hat
    int nnz;
    double nonEmptyShare;    // delta = n-hat / n
    double meanDegreeAll;    // d = nnz / n
    double meanDegree;       // d-hat = nnz / n-hat
    int maxDegree;           // d_max
    double degreeCvAll;      // CV over all n rows, empty ones as degree 0
    double degreeCv;         // CV-hat, over the non-empty rows
    double density;          // rho = nnz / n^2
    double meanBandwidth;    // b: last minus first column of a row, mean over non-empty rows
    double maxBandwidth;     // b_max
    double paddingRatio[2];  // PR_1 (always 0), PR_2
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
    int sweepDims;      // how many of the run's dims this input is swept at
    int reorderedFrom;  // the index of the input this is the RCM reordering of, or -1
};

struct Config {
    int W;
    int F;
    int V;
    int S;
};

// One node of a decision tree: a split (go left when feature <= threshold)
// or, when feature < 0, a leaf holding a configuration.
struct TreeNode {
    int feature;
    double threshold;
    int left;
    int right;
    Config leaf;
};

struct Tree {
    int dim;
    int nodeCount;
    TreeNode nodes[kMaxTreeNodes];
};

// The decider: one tree per dim, and the provenance lines of its file.
struct Model {
    char path[256];
    char provenance[4][160];  // gpu, date, training inputs, timed runs
    int treeCount;
    Tree trees[kMaxDims];
};

// Everything the host part decided from the flags.
struct Options {
    int small;
    int train;
    const char* modelPath;
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

static int maxFFor(int dim) { return ceilDiv(dim, kWarpSize); }

static void configName(Config c, char* out, size_t cap) {
    snprintf(out, cap, "W%d F%d V%d S%d", c.W, c.F, c.V, c.S);
}

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
    const long long cap = edges > 0 ? 2 * edges : 1;  // room for one entry even with no edges
    int* row = (int*)checkedMalloc((size_t)cap * sizeof(int));
    int* col = (int*)checkedMalloc((size_t)cap * sizeof(int));
    row[0] = col[0] = 0;  // so the arrays are defined even when no edge is written
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
// Fisher-Yates: perm becomes a uniformly random permutation of 0..n-1.
static void randomPermutation(int n, uint64_t* state, int* perm) {
    for (int i = 0; i < n; ++i) perm[i] = i;
    for (int i = n - 1; i > 0; --i) {
        const int j = (int)(splitmix64(state) % (uint64_t)(i + 1));
        const int t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
}

// Unshuffled (shuffle = 0, a training family member) the ids keep R-MAT's
// own order, in which the heavy vertices sit at low ids and share bit
// prefixes with their neighbours: some locality, which shuffling destroys.
static void generateKronecker(int scale, int edgeFactor, uint64_t seed, int shuffle, Csr* a) {
    const int n = 1 << scale;
    const long long edges = (long long)edgeFactor * n;
    int* eu = (int*)checkedMalloc((size_t)edges * sizeof(int));
    int* ev = (int*)checkedMalloc((size_t)edges * sizeof(int));
    int* perm = (int*)checkedMalloc((size_t)n * sizeof(int));
    uint64_t state = seed;
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
    if (shuffle) {
        randomPermutation(n, &state, perm);
        for (long long e = 0; e < kept; ++e) {
            eu[e] = perm[eu[e]];
            ev[e] = perm[ev[e]];
        }
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

// A grid with a share of its edges removed (30% by default): degree 0..4,
// mean 2.8, the shape of a road map. Ids stay row-major, so neighbours are
// +-1 and +-side, and rows i and i + 1 share no column at all: the worst case
// for V = 2.
static int roadEdgeKept(int u, int v, uint64_t seed, double keep) {
    const uint64_t h = hash64(((uint64_t)u << 32 | (uint64_t)v) ^ seed);
    return unit01(h) < keep;
}

static void generateRoad(int side, uint64_t seed, double keep, Csr* a) {
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
            if (y > 0 && roadEdgeKept(id - side, id, seed, keep)) nbs[k++] = id - side;
            if (x > 0 && roadEdgeKept(id - 1, id, seed, keep)) nbs[k++] = id - 1;
            if (x + 1 < side && roadEdgeKept(id, id + 1, seed, keep)) nbs[k++] = id + 1;
            if (y + 1 < side && roadEdgeKept(id, id + side, seed, keep)) nbs[k++] = id + side;
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

// The shape of a community graph, its knobs in one place.
struct CommunityShape {
    int minSize;    // cluster sizes drawn from minSize..maxSize
    int maxSize;
    double inside;  // chance of each pair inside a cluster
    int outside;    // random edges per vertex to anywhere
};

// Clusters of consecutive ids, each pair inside a cluster joined with
// probability `inside`, plus `outside` random edges per vertex to anywhere.
// Neighbouring rows then share most of their columns: the locality a graph
// reordering (the paper uses Rabbit Order) gives real community graphs.
static void generateCommunity(int n, uint64_t seed, CommunityShape shape, Csr* a) {
    uint64_t state = seed;
    long long cap = (long long)n * (shape.maxSize / 2 + shape.outside) + 16;
    int* eu = (int*)checkedMalloc((size_t)cap * sizeof(int));
    int* ev = (int*)checkedMalloc((size_t)cap * sizeof(int));
    long long edges = 0;
    int first = 0;
    while (first < n) {
        int size = shape.minSize + (int)(splitmix64(&state) % (uint64_t)(shape.maxSize - shape.minSize + 1));
        if (size > n - first) size = n - first;
        for (int i = first; i < first + size; ++i) {
            for (int j = i + 1; j < first + size; ++j) {
                if (unit01(splitmix64(&state)) < shape.inside) {
                    eu[edges] = i;
                    ev[edges] = j;
                    ++edges;
                }
            }
        }
        first += size;
    }
    for (int i = 0; i < n; ++i) {
        for (int t = 0; t < shape.outside; ++t) {
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

// Random graphs for the training family, two shapes from one generator.
// Each vertex draws `perVertex` partners. With window >= n a partner is any
// vertex (uniform random, Erdos-Renyi-like: no locality, even degrees).
// With a small window it is within +-window ids (a banded graph: locality
// without clusters). With skew > 0 the partner is drawn from a power law
// instead, P(j) proportional to (j + 1)^-skew (Chung-Lu-like: the hubs
// are the low ids, so a power-law graph whose ids are not scattered).
static void generateRandom(int n, int perVertex, int window, double skew, uint64_t seed, Csr* a) {
    uint64_t state = seed;
    const long long edges = (long long)n * perVertex;
    int* eu = (int*)checkedMalloc((size_t)edges * sizeof(int));
    int* ev = (int*)checkedMalloc((size_t)edges * sizeof(int));
    double* cumulative = (double*)checkedMalloc((size_t)n * sizeof(double));
    double total = 0.0;
    for (int j = 0; j < n; ++j) {
        total += skew > 0.0 ? pow(j + 1.0, -skew) : 1.0;
        cumulative[j] = total;
    }
    for (long long e = 0; e < edges; ++e) {
        const int u = (int)(e / perVertex);
        int v = 0;
        if (skew > 0.0) {  // inverse CDF by binary search
            const double r = unit01(splitmix64(&state)) * total;
            int lo = 0, hi = n - 1;
            while (lo < hi) {
                const int mid = (lo + hi) / 2;
                if (cumulative[mid] < r) lo = mid + 1; else hi = mid;
            }
            v = lo;
        } else if (window >= n) {
            v = (int)(splitmix64(&state) % (uint64_t)n);
        } else {
            v = u + (int)(splitmix64(&state) % (uint64_t)(2 * window + 1)) - window;
            v = v < 0 ? -v : v >= n ? 2 * (n - 1) - v : v;  // reflect at the ends
        }
        eu[e] = u;
        ev[e] = v;
    }
    csrFromEdges(n, edges, eu, ev, a);
    free(eu);
    free(ev);
    free(cumulative);
}

// Renumbers the vertices of a: vertex i becomes newId[i], so
// out = P A P^T. Entries are re-sorted by the same linear sort as a load;
// values travel with their entries.
static void permuteCsr(const Csr* a, const int* newId, Csr* out) {
    int* row = (int*)checkedMalloc((size_t)a->nnz * sizeof(int));
    int* col = (int*)checkedMalloc((size_t)a->nnz * sizeof(int));
    for (int i = 0; i < a->n; ++i) {
        for (int e = a->rowPtr[i]; e < a->rowPtr[i + 1]; ++e) {
            row[e] = newId[i];
            col[e] = newId[a->colIdx[e]];
        }
    }
    int* order = sortEntries(a->n, a->nnz, row, col);
    out->n = a->n;
    out->nnz = a->nnz;
    out->rowPtr = (int*)checkedMalloc((size_t)(a->n + 1) * sizeof(int));
    out->colIdx = (int*)checkedMalloc((size_t)a->nnz * sizeof(int));
    out->val = (float*)checkedMalloc((size_t)a->nnz * sizeof(float));
    memset(out->rowPtr, 0, (size_t)(a->n + 1) * sizeof(int));
    for (int k = 0; k < a->nnz; ++k) {
        const int e = order[k];
        ++out->rowPtr[row[e] + 1];
        out->colIdx[k] = col[e];
        out->val[k] = a->val[e];
    }
    for (int i = 0; i < a->n; ++i) out->rowPtr[i + 1] += out->rowPtr[i];
    free(order);
    free(row);
    free(col);
}

static void shuffleCsr(const Csr* a, uint64_t seed, Csr* out) {
    int* perm = (int*)checkedMalloc((size_t)a->n * sizeof(int));
    uint64_t state = seed;
    randomPermutation(a->n, &state, perm);
    permuteCsr(a, perm, out);
    free(perm);
}

// ----------------------------------------------------------- the reordering

struct DegreeOf {
    int degree;
    int id;
};

// Lower degree first, then lower id, so the order is the same on every run.
static int byDegree(const void* x, const void* y) {
    const DegreeOf* a = (const DegreeOf*)x;
    const DegreeOf* b = (const DegreeOf*)y;
    if (a->degree != b->degree) return a->degree < b->degree ? -1 : 1;
    return a->id < b->id ? -1 : a->id > b->id;
}

// snippet: reordering
// Reverse Cuthill-McKee. A breadth-first walk numbers each vertex's unvisited
// neighbours together, lowest degree first, so a vertex's neighbours get
// consecutive ids, and so do two vertices with a common neighbour: rows i
// and i + 1 come to share columns, which is what V = 2 turns into fewer
// loads of B. Each component starts from its lowest-degree vertex (a cheap
// stand-in for a peripheral one). Reversing the order is the "R": it does
// not change which rows are neighbours, only the direction of the profile.
// Returns newId, newId[old vertex] = new vertex.
static int* rcmOrder(const Csr* a) {
    const int n = a->n;
    int* order = (int*)checkedMalloc((size_t)n * sizeof(int));  // the visit order, a BFS queue
    char* seen = (char*)checkedMalloc((size_t)n);
    DegreeOf* starts = (DegreeOf*)checkedMalloc((size_t)n * sizeof(DegreeOf));
    DegreeOf* batch = (DegreeOf*)checkedMalloc((size_t)n * sizeof(DegreeOf));
    memset(seen, 0, (size_t)n);
    for (int i = 0; i < n; ++i) {
        starts[i].degree = a->rowPtr[i + 1] - a->rowPtr[i];
        starts[i].id = i;
    }
    qsort(starts, (size_t)n, sizeof(DegreeOf), byDegree);
    int tail = 0;
    for (int s = 0; s < n; ++s) {
        if (seen[starts[s].id]) continue;
        int head = tail;
        order[tail++] = starts[s].id;
        seen[starts[s].id] = 1;
        while (head < tail) {
            const int u = order[head++];
            int count = 0;
            for (int e = a->rowPtr[u]; e < a->rowPtr[u + 1]; ++e) {
                const int v = a->colIdx[e];
                if (seen[v]) continue;
                seen[v] = 1;
                batch[count].degree = a->rowPtr[v + 1] - a->rowPtr[v];
                batch[count].id = v;
                ++count;
            }
            qsort(batch, (size_t)count, sizeof(DegreeOf), byDegree);
            for (int k = 0; k < count; ++k) order[tail++] = batch[k].id;
        }
    }
    int* newId = (int*)checkedMalloc((size_t)n * sizeof(int));
    for (int k = 0; k < n; ++k) newId[order[k]] = n - 1 - k;
    free(order);
    free(seen);
    free(starts);
    free(batch);
    return newId;
}
// end snippet

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

// snippet: feature-computation
// The paper's features, three groups. Size: n, n-hat, nnz, delta = n-hat / n.
// Degree distribution: d = nnz / n, d-hat = nnz / n-hat, d_max, CV and
// CV-hat (standard deviation over mean of the row lengths, over all rows and
// over the non-empty ones), SR_1 and SR_2. Locality: rho = nnz / n^2, the
// mean and largest row bandwidth b and b_max (last column minus first), and
// PR_2. All are counted from the CSR and the PCSR built here, in one pass
// each; none needs the GPU, so the decider's answer is known before it runs.
static void analyseInput(Input* in) {
    const Csr* a = &in->a;
    Features* f = &in->f;
    memset(f, 0, sizeof(*f));
    f->rows = a->n;
    f->nnz = a->nnz;
    double sumSq = 0.0, band = 0.0;
    for (int i = 0; i < a->n; ++i) {
        const int d = a->rowPtr[i + 1] - a->rowPtr[i];
        if (d == 0) continue;
        ++f->nonEmptyRows;
        sumSq += (double)d * d;
        const int width = a->colIdx[a->rowPtr[i + 1] - 1] - a->colIdx[a->rowPtr[i]];
        band += width;
        if (width > f->maxBandwidth) f->maxBandwidth = width;
        if (d > f->maxDegree) f->maxDegree = d;
    }
    const double n = a->n;
    const double nHat = f->nonEmptyRows > 0 ? f->nonEmptyRows : 1;
    f->nonEmptyShare = f->nonEmptyRows / n;
    f->meanDegreeAll = a->nnz / n;
    f->meanDegree = a->nnz / nHat;
    // The sum of squares is the same with or without the empty rows (they add
    // 0); only the count and the mean change.
    const double varAll = sumSq / n - f->meanDegreeAll * f->meanDegreeAll;
    const double varHat = sumSq / nHat - f->meanDegree * f->meanDegree;
    f->degreeCvAll = f->meanDegreeAll > 0 ? sqrt(varAll > 0 ? varAll : 0) / f->meanDegreeAll : 0.0;
    f->degreeCv = f->meanDegree > 0 ? sqrt(varHat > 0 ? varHat : 0) / f->meanDegree : 0.0;
    f->density = a->nnz / (n * n);
    f->meanBandwidth = band / nHat;
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

// The feature vector the trees read, in the order of kFeatureNames.
static void featureVector(const Features* f, double* x) {
    const double values[] = {(double)f->rows,  (double)f->nonEmptyRows, (double)f->nnz,  f->nonEmptyShare,
                             f->meanDegreeAll, f->meanDegree,           (double)f->maxDegree, f->degreeCvAll,
                             f->degreeCv,      f->splitRatio[0],        f->splitRatio[1], f->density,
                             f->meanBandwidth, f->maxBandwidth,         f->paddingRatio[1]};
    for (int k = 0; k < kFeatureCount; ++k) x[k] = values[k];
}
// end snippet

static const char* kFeatureNames[] = {"n", "n_hat", "nnz", "delta", "d", "d_hat", "d_max", "cv",
                                      "cv_hat", "sr_1", "sr_2", "rho", "b", "b_max", "pr_2"};

// ------------------------------------------------------------- the decider

// The model file, line by line (comments start with #, blank lines skipped):
//   # spmm decider model, format 1          the first line, exactly
//   # gpu: / # date: / # training: / # runs:  provenance, written by --train
//   features 15 n n_hat ... pr_2             the feature names, in order
//   dims COUNT DIM...                        the dims that have a tree
//   tree DIM NODES                           then NODES node lines, ids 0.. in order:
//   ID split FEATURE THRESHOLD LEFT RIGHT    go LEFT when FEATURE <= THRESHOLD, else RIGHT
//   ID leaf W F V S                          predict <W, F, V, S>
//   end                                      after the last tree (a cut file lacks it)
// Children have larger ids than their parent, so a walk always ends.
static const char* kModelHeader = "# spmm decider model, format";
static const char* kProvenanceKeys[4] = {"# gpu: ", "# date: ", "# training: ", "# runs: "};

// The tree for dim, or NULL.
static const Tree* treeFor(const Model* m, int dim) {
    for (int t = 0; t < m->treeCount; ++t) {
        if (m->trees[t].dim == dim) return &m->trees[t];
    }
    return NULL;
}

static int featureIndex(const char* name) {
    for (int k = 0; k < kFeatureCount; ++k) {
        if (strcmp(name, kFeatureNames[k]) == 0) return k;
    }
    return -1;
}

static int configAllowed(Config c, int dim) {
    return (c.W == 1 || c.W == 2 || c.W == 4 || c.W == 8) && c.F >= 1 && c.F <= maxFFor(dim) &&
           (c.V == 1 || c.V == 2) && (c.S == 0 || c.S == 1);
}

// Reads the next line that is not a comment or blank; 0 at end of file, -1
// when it is too long. Keeps the provenance comments it passes.
static int nextModelLine(FILE* file, char* line, int cap, int* lineNo, Model* m) {
    for (;;) {
        const int got = readLine(file, line, cap);
        if (got <= 0) return got;
        ++*lineNo;
        line[strcspn(line, "\r\n")] = '\0';
        for (int k = 0; k < 4; ++k) {
            const size_t len = strlen(kProvenanceKeys[k]);
            if (strncmp(line, kProvenanceKeys[k], len) == 0) {
                snprintf(m->provenance[k], sizeof(m->provenance[k]), "%s", line + len);
            }
        }
        if (line[0] != '#' && !isBlank(line)) return 1;
    }
}

// Parses one node line into tree->nodes[id]; prints the fault and returns 0.
static int parseNode(const char* path, int lineNo, const char* line, Tree* tree, int id) {
    char t[7][64] = {"", "", "", "", "", "", ""};
    char extra[8] = "";
    const int tokens = sscanf(line, "%63s %63s %63s %63s %63s %63s %63s", t[0], t[1], t[2], t[3], t[4], t[5], extra);
    long long number = 0;
    if (tokens < 2 || !parseLongLong(t[0], &number)) {
        fprintf(stderr, "%s: line %d: bad node line (want: ID split FEATURE THRESHOLD LEFT RIGHT, or ID leaf W F V S)\n",
                path, lineNo);
        return 0;
    }
    if (number != id) {
        fprintf(stderr, "%s: line %d: node %s is out of order (want node %d of the tree for dim %d)\n", path, lineNo,
                t[0], id, tree->dim);
        return 0;
    }
    TreeNode* node = &tree->nodes[id];
    if (strcmp(t[1], "leaf") == 0) {
        long long w = 0, f = 0, v = 0, s = 0;
        if (tokens != 6 || !parseLongLong(t[2], &w) || !parseLongLong(t[3], &f) || !parseLongLong(t[4], &v) ||
            !parseLongLong(t[5], &s)) {
            fprintf(stderr, "%s: line %d: bad leaf (want: ID leaf W F V S)\n", path, lineNo);
            return 0;
        }
        const Config c = {(int)w, (int)f, (int)v, (int)s};
        if (w != c.W || f != c.F || v != c.V || s != c.S || !configAllowed(c, tree->dim)) {
            fprintf(stderr, "%s: line %d: W%s F%s V%s S%s is not a configuration at dim %d (W 1/2/4/8, F 1..%d, V 1/2, S 0/1)\n",
                    path, lineNo, t[2], t[3], t[4], t[5], tree->dim, maxFFor(tree->dim));
            return 0;
        }
        node->feature = -1;
        node->leaf = c;
        return 1;
    }
    long long left = 0, right = 0;
    if (strcmp(t[1], "split") != 0 || tokens != 6 || !parseLongLong(t[4], &left) || !parseLongLong(t[5], &right)) {
        fprintf(stderr, "%s: line %d: bad node line (want: ID split FEATURE THRESHOLD LEFT RIGHT, or ID leaf W F V S)\n",
                path, lineNo);
        return 0;
    }
    node->feature = featureIndex(t[2]);
    if (node->feature < 0) {
        fprintf(stderr, "%s: line %d: unknown feature %s\n", path, lineNo, t[2]);
        return 0;
    }
    char* end = NULL;
    node->threshold = strtod(t[3], &end);
    if (end == t[3] || *end != '\0' || !isfinite(node->threshold)) {
        fprintf(stderr, "%s: line %d: threshold %s is not a finite number\n", path, lineNo, t[3]);
        return 0;
    }
    if (left <= id || left >= tree->nodeCount || right <= id || right >= tree->nodeCount) {
        fprintf(stderr, "%s: line %d: children %s and %s must be nodes %d..%d (after this one, inside the tree)\n",
                path, lineNo, t[4], t[5], id + 1, tree->nodeCount - 1);
        return 0;
    }
    node->left = (int)left;
    node->right = (int)right;
    return 1;
}

// Loads and validates a whole model; on any fault prints one line naming the
// file and line, and returns 0. Nothing is allocated: the model is a value.
static int parseModel(FILE* file, const char* path, Model* m) {
    char line[1024];
    int lineNo = 0;
    int got = readLine(file, line, sizeof(line));
    ++lineNo;
    char header[64];
    snprintf(header, sizeof(header), "%s %d", kModelHeader, kModelFormatVersion);
    if (got <= 0 || strncmp(line, header, strlen(header)) != 0 || !isBlank(line + strlen(header))) {
        fprintf(stderr, "%s: line 1: not a decider model (want the line: %s)\n", path, header);
        return 0;
    }
    char t[kFeatureCount + 3][64];
    got = nextModelLine(file, line, sizeof(line), &lineNo, m);
    long long count = 0;
    if (got <= 0 || sscanf(line, "%63s %63s", t[0], t[1]) != 2 || strcmp(t[0], "features") != 0 ||
        !parseLongLong(t[1], &count)) {
        fprintf(stderr, "%s: line %d: want the features line (features %d %s ...)\n", path, lineNo, kFeatureCount,
                kFeatureNames[0]);
        return 0;
    }
    if (count != kFeatureCount) {
        fprintf(stderr, "%s: line %d: the model reads %s features; this program computes %d\n", path, lineNo, t[1],
                kFeatureCount);
        return 0;
    }
    {
        const char* p = line;
        for (int k = 0; k < kFeatureCount + 2; ++k) {  // "features", the count, then the names
            int used = 0;
            if (sscanf(p, "%63s%n", t[k], &used) != 1) {
                fprintf(stderr, "%s: line %d: the features line names fewer than %d features\n", path, lineNo,
                        kFeatureCount);
                return 0;
            }
            p += used;
            if (k >= 2 && strcmp(t[k], kFeatureNames[k - 2]) != 0) {
                fprintf(stderr, "%s: line %d: feature %d is %s, want %s\n", path, lineNo, k - 1, t[k],
                        kFeatureNames[k - 2]);
                return 0;
            }
        }
    }
    got = nextModelLine(file, line, sizeof(line), &lineNo, m);
    int dims[kMaxDims];
    int dimCount = 0;
    {
        const char* p = line;
        int used = 0;
        long long value = 0;
        if (got <= 0 || sscanf(p, "%63s %63s%n", t[0], t[1], &used) != 2 || strcmp(t[0], "dims") != 0 ||
            !parseLongLong(t[1], &count) || count < 1 || count > kMaxDims) {
            fprintf(stderr, "%s: line %d: want the dims line (dims COUNT DIM..., COUNT 1..%d)\n", path, lineNo, kMaxDims);
            return 0;
        }
        p += used;
        for (; dimCount < count; ++dimCount) {
            if (sscanf(p, "%63s%n", t[0], &used) != 1 || !parseLongLong(t[0], &value) || value < 1 || value > kMaxDim) {
                fprintf(stderr, "%s: line %d: dim %d of %lld is missing or outside 1..%d\n", path, lineNo, dimCount + 1,
                        count, kMaxDim);
                return 0;
            }
            p += used;
            dims[dimCount] = (int)value;
        }
    }
    m->treeCount = 0;
    for (int d = 0; d < dimCount; ++d) {
        got = nextModelLine(file, line, sizeof(line), &lineNo, m);
        if (got <= 0) {
            fprintf(stderr, "%s: line %d: the file ends before the tree for dim %d\n", path, lineNo, dims[d]);
            return 0;
        }
        long long dim = 0, nodes = 0;
        if (sscanf(line, "%63s %63s %63s", t[0], t[1], t[2]) != 3 || strcmp(t[0], "tree") != 0 ||
            !parseLongLong(t[1], &dim) || !parseLongLong(t[2], &nodes)) {
            fprintf(stderr, "%s: line %d: want the tree for dim %d (tree %d NODES)\n", path, lineNo, dims[d], dims[d]);
            return 0;
        }
        if (dim != dims[d]) {
            fprintf(stderr, "%s: line %d: tree for dim %s where the dims line says %d comes next\n", path, lineNo, t[1],
                    dims[d]);
            return 0;
        }
        if (nodes < 1 || nodes > kMaxTreeNodes) {
            fprintf(stderr, "%s: line %d: %s nodes is outside 1..%d\n", path, lineNo, t[2], kMaxTreeNodes);
            return 0;
        }
        Tree* tree = &m->trees[m->treeCount++];
        tree->dim = (int)dim;
        tree->nodeCount = (int)nodes;
        for (int id = 0; id < tree->nodeCount; ++id) {
            got = nextModelLine(file, line, sizeof(line), &lineNo, m);
            if (got <= 0) {
                fprintf(stderr, "%s: line %d: the file ends inside the tree for dim %d (%d of %d nodes)\n", path,
                        lineNo, tree->dim, id, tree->nodeCount);
                return 0;
            }
            if (!parseNode(path, lineNo, line, tree, id)) return 0;
        }
    }
    got = nextModelLine(file, line, sizeof(line), &lineNo, m);
    if (got <= 0) {
        fprintf(stderr, "%s: line %d: the file ends without the end line after the last tree (cut short?)\n", path,
                lineNo);
        return 0;
    }
    if (strcmp(line, "end") != 0) {
        fprintf(stderr, "%s: line %d: want the end line after the last tree\n", path, lineNo);
        return 0;
    }
    got = nextModelLine(file, line, sizeof(line), &lineNo, m);
    if (got != 0) {
        fprintf(stderr, "%s: line %d: text after the end line\n", path, lineNo);
        return 0;
    }
    return 1;
}

static int loadModel(const char* path, Model* m) {
    memset(m, 0, sizeof(*m));
    snprintf(m->path, sizeof(m->path), "%s", path);
    FILE* file = fopen(path, "r");
    if (file == NULL) {
        fprintf(stderr, "%s: cannot open: %s (./spmm --train writes it)\n", path, strerror(errno));
        return 0;
    }
    const int ok = parseModel(file, path, m);
    fclose(file);
    return ok;
}

// A model knows only the dims it was trained at: a tree for dim 64 says
// nothing about dim 48, so a run at a dim without a tree is refused.
static int modelCovers(const Model* m, const int* dims, int dimCount, const char* usedFor) {
    for (int i = 0; i < dimCount; ++i) {
        if (treeFor(m, dims[i]) != NULL) continue;
        char list[160] = "";
        for (int t = 0; t < m->treeCount; ++t) {
            const size_t len = strlen(list);
            snprintf(list + len, sizeof(list) - len, "%s%d", t > 0 ? " " : "", m->trees[t].dim);
        }
        fprintf(stderr, "%s: trained for dims %s, not for dim %d, %s (train it: ./spmm --train --dims ...)\n",
                m->path, list, dims[i], usedFor);
        return 0;
    }
    return 1;
}

// snippet: tree-walk
// The decider's whole run-time cost: a few comparisons per input and dim.
static Config predict(const Tree* tree, const double* x) {
    int node = 0;
    while (tree->nodes[node].feature >= 0) {
        const TreeNode* split = &tree->nodes[node];
        node = x[split->feature] <= split->threshold ? split->left : split->right;
    }
    return tree->nodes[node].leaf;
}
// end snippet

// The shortest decimal that reads back as exactly this double.
static void formatExact(double value, char* out, size_t cap) {
    for (int digits = 1; digits <= 17; ++digits) {
        snprintf(out, cap, "%.*g", digits, value);
        if (strtod(out, NULL) == value) return;
    }
}

// Writes the tree in the file's line format. A tree learned from timings is
// measured, so in the program's output each line goes between `before` and
// `after` ("~ {" and "}"); in the file both are empty.
static void printTree(FILE* out, const Tree* tree, const char* before, const char* after) {
    fprintf(out, "%stree %d %d%s\n", before, tree->dim, tree->nodeCount, after);
    for (int id = 0; id < tree->nodeCount; ++id) {
        const TreeNode* node = &tree->nodes[id];
        if (node->feature < 0) {
            fprintf(out, "%s%d leaf %d %d %d %d%s\n", before, id, node->leaf.W, node->leaf.F, node->leaf.V, node->leaf.S,
                    after);
        } else {
            char threshold[32];
            formatExact(node->threshold, threshold, sizeof(threshold));
            fprintf(out, "%s%d split %s %s %d %d%s\n", before, id, kFeatureNames[node->feature], threshold,
                    node->left, node->right, after);
        }
    }
}

// The tiny model --small uses when no --model is given: it exercises the
// parser and the tree walk, and predicts within the small run's space.
static const char* kSmallModelText =
    "# spmm decider model, format 1\n"
    "# training: none, a hand-made model for the --small run\n"
    "features 15 n n_hat nnz delta d d_hat d_max cv cv_hat sr_1 sr_2 rho b b_max pr_2\n"
    "dims 2 16 48\n"
    "tree 16 3\n0 split cv_hat 1 1 2\n1 leaf 4 1 2 0\n2 leaf 1 1 1 1\n"
    "tree 48 3\n0 split pr_2 0.4 1 2\n1 leaf 4 2 2 0\n2 leaf 4 1 1 1\nend\n";

// ------------------------------------------------------ training the trees

// One dim's training data: per graph, its features and, per configuration,
// the normalized performance best time / this time (0 when it failed).
struct TrainSet {
    int samples;
    int configCount;
    Config* configs;
    double* x;     // samples x kFeatureCount
    double* perf;  // samples x configCount
};

struct ValueOf {
    double value;
    int sample;
};

static int byValue(const void* x, const void* y) {
    const ValueOf* a = (const ValueOf*)x;
    const ValueOf* b = (const ValueOf*)y;
    if (a->value != b->value) return a->value < b->value ? -1 : 1;
    return a->sample - b->sample;
}

// The configuration with the largest summed log normalized performance over
// the samples (the best geometric mean); the sum is returned through score.
static int bestConfig(const TrainSet* set, const double* sums, double* score) {
    int best = 0;
    for (int c = 1; c < set->configCount; ++c) best = sums[c] > sums[best] ? c : best;
    *score = sums[best];
    return best;
}

// The tree's currency: log of best time / this time. Summing logs makes a
// leaf's choice the best geometric mean, so a configuration that is 14x slow
// on one graph of the leaf cannot hide behind small wins on the others, as it
// can under an arithmetic mean (the first trained model did exactly that on
// kron-18 at dims 16 and 32). A failed configuration (0) counts as
// kPerfFloor, 1000x slower than the best, instead of minus infinity.
static double logPerf(double perf) {
    return log(perf > kPerfFloor ? perf : kPerfFloor);
}

// CART, with the split chosen for the decider's own goal: a leaf predicts the
// configuration with the best geometric mean of normalized performance over
// its samples, and a split is taken where it most raises the leaves' summed
// log normalized performance (a regression tree on the whole performance vector, not a
// vote on labels). Grows until kTreeDepth, kMinLeafSamples, or no gain.
// Returns the node's id; children always get larger ids than their parent.
static int growTree(const TrainSet* set, int* samples, int count, int depth, Tree* tree, ValueOf* scratch,
                    double* sums) {
    const int id = tree->nodeCount++;
    TreeNode* node = &tree->nodes[id];
    const int C = set->configCount;
    double* total = sums;
    double* prefix = sums + C;
    for (int c = 0; c < C; ++c) total[c] = 0.0;
    for (int i = 0; i < count; ++i) {
        for (int c = 0; c < C; ++c) total[c] += logPerf(set->perf[(size_t)samples[i] * C + c]);
    }
    double leafScore = 0.0;
    node->feature = -1;
    node->leaf = set->configs[bestConfig(set, total, &leafScore)];
    if (depth >= kTreeDepth || count < 2 * kMinLeafSamples || tree->nodeCount + 2 > kMaxTreeNodes) return id;

    int bestFeature = -1;
    double bestGain = 1e-9, bestThreshold = 0.0;  // a split must gain something
    for (int k = 0; k < kFeatureCount; ++k) {
        for (int i = 0; i < count; ++i) {
            scratch[i].value = set->x[(size_t)samples[i] * kFeatureCount + k];
            scratch[i].sample = samples[i];
        }
        qsort(scratch, (size_t)count, sizeof(ValueOf), byValue);
        for (int c = 0; c < C; ++c) prefix[c] = 0.0;
        for (int cut = 1; cut < count; ++cut) {  // left = the first `cut` samples
            for (int c = 0; c < C; ++c) prefix[c] += logPerf(set->perf[(size_t)scratch[cut - 1].sample * C + c]);
            if (cut < kMinLeafSamples || count - cut < kMinLeafSamples) continue;
            if (scratch[cut - 1].value == scratch[cut].value) continue;
            double left = -HUGE_VAL, right = -HUGE_VAL;
            for (int c = 0; c < C; ++c) {
                left = prefix[c] > left ? prefix[c] : left;
                right = total[c] - prefix[c] > right ? total[c] - prefix[c] : right;
            }
            if (left + right - leafScore > bestGain) {
                bestGain = left + right - leafScore;
                bestFeature = k;
                // The shortest decimal in [left value, right value): readable in the file.
                const double lo = scratch[cut - 1].value, hi = scratch[cut].value;
                bestThreshold = lo;
                char text[32];
                for (int digits = 1; digits <= 17; ++digits) {
                    snprintf(text, sizeof(text), "%.*g", digits, 0.5 * (lo + hi));
                    const double t = strtod(text, NULL);
                    if (t >= lo && t < hi) {
                        bestThreshold = t;
                        break;
                    }
                }
            }
        }
    }
    if (bestFeature < 0) return id;
    // Partition the samples: those at or below the threshold first.
    int left = 0;
    for (int i = 0; i < count; ++i) {
        if (set->x[(size_t)samples[i] * kFeatureCount + bestFeature] <= bestThreshold) {
            const int t = samples[left];
            samples[left++] = samples[i];
            samples[i] = t;
        }
    }
    node->feature = bestFeature;
    node->threshold = bestThreshold;
    node->left = growTree(set, samples, left, depth + 1, tree, scratch, sums);
    tree->nodes[id].right = growTree(set, samples + left, count - left, depth + 1, tree, scratch, sums);
    return id;
}

// Fits one tree on the samples listed (all of them, or all but one).
static void fitTree(const TrainSet* set, const int* chosen, int count, int dim, Tree* tree) {
    int* samples = (int*)checkedMalloc((size_t)count * sizeof(int));
    ValueOf* scratch = (ValueOf*)checkedMalloc((size_t)count * sizeof(ValueOf));
    double* sums = (double*)checkedMalloc((size_t)2 * set->configCount * sizeof(double));
    memcpy(samples, chosen, (size_t)count * sizeof(int));
    memset(tree, 0, sizeof(*tree));
    tree->dim = dim;
    growTree(set, samples, count, 0, tree, scratch, sums);
    free(samples);
    free(scratch);
    free(sums);
}

// The normalized performance the tree's prediction reaches on one sample.
static double perfOfPrediction(const TrainSet* set, const Tree* tree, int sample) {
    const Config c = predict(tree, set->x + (size_t)sample * kFeatureCount);
    for (int k = 0; k < set->configCount; ++k) {
        const Config x = set->configs[k];
        if (x.W == c.W && x.F == c.F && x.V == c.V && x.S == c.S) return set->perf[(size_t)sample * set->configCount + k];
    }
    return 0.0;
}

static void writeModel(const Model* m, FILE* out) {
    fprintf(out, "%s %d\n", kModelHeader, kModelFormatVersion);
    for (int k = 0; k < 4; ++k) fprintf(out, "%s%s\n", kProvenanceKeys[k], m->provenance[k]);
    fprintf(out, "# Lines: features (names, in order); dims (those with a tree); tree DIM NODES, then its nodes:\n");
    fprintf(out, "#   ID split FEATURE THRESHOLD LEFT RIGHT   go to LEFT when FEATURE <= THRESHOLD, else to RIGHT\n");
    fprintf(out, "#   ID leaf W F V S                          predict the configuration <W, F, V, S>\n");
    fprintf(out, "# and end after the last tree. Node 0 is the root; children have larger ids.\n");
    fprintf(out, "features %d", kFeatureCount);
    for (int k = 0; k < kFeatureCount; ++k) fprintf(out, " %s", kFeatureNames[k]);
    fprintf(out, "\ndims %d", m->treeCount);
    for (int t = 0; t < m->treeCount; ++t) fprintf(out, " %d", m->trees[t].dim);
    fprintf(out, "\n");
    for (int t = 0; t < m->treeCount; ++t) printTree(out, &m->trees[t], "", "");
    fprintf(out, "end\n");
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

// The GCN's activation between its two layers, in place. It is not part of
// the SpMM story; it is here because a layer is transform, aggregate, relu.
// Launch: one thread per element; gridDim.x * blockDim.x >= count.
__global__ void reluInPlace(float* __restrict__ x, long long count) {
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < count) x[i] = fmaxf(x[i], 0.0f);
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
// `runs` launches back to back between two events. Nothing else in the window.
static float timeMs(void (*launch)(const void* ctx), const void* ctx, int warmups, int runs) {
    cudaEvent_t start, stop;
    CUDA_CHECK(cudaEventCreate(&start));
    CUDA_CHECK(cudaEventCreate(&stop));
    for (int i = 0; i < warmups; ++i) launch(ctx);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaEventRecord(start));
    for (int i = 0; i < runs; ++i) launch(ctx);
    CUDA_CHECK(cudaEventRecord(stop));
    CUDA_CHECK(cudaEventSynchronize(stop));
    CUDA_CHECK(cudaGetLastError());
    float ms = 0.0f;
    CUDA_CHECK(cudaEventElapsedTime(&ms, start, stop));
    CUDA_CHECK(cudaEventDestroy(start));
    CUDA_CHECK(cudaEventDestroy(stop));
    return ms / runs;
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

static void printInputFacts(const Input* in) {
    const Features* f = &in->f;
    printf("\n%s: %s\n", in->name, in->about);
    printf("  size: n = %d, n_hat = %d non-empty (delta = %.4f), nnz = %d, rho = %.3e\n", f->rows, f->nonEmptyRows,
           f->nonEmptyShare, f->nnz, f->density);
    printf("  degree: d = %.2f, d_hat = %.2f, d_max = %d, CV = %.2f, CV_hat = %.2f\n", f->meanDegreeAll,
           f->meanDegree, f->maxDegree, f->degreeCvAll, f->degreeCv);
    printf("  locality: b = %.1f (%.4f of n), b_max = %.0f; a row spans b columns, last minus first\n",
           f->meanBandwidth, f->meanBandwidth / f->rows, f->maxBandwidth);
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
    o->modelPath = kDefaultModelPath;
    o->paths = (char**)checkedMalloc((size_t)argc * sizeof(char*));
    int dimsGiven = 0;
    int allDims = 0;
    for (int i = 1; i < argc; ++i) {
        const char* arg = argv[i];
        if (strcmp(arg, "--small") == 0) {
            o->small = 1;
        } else if (strcmp(arg, "--train") == 0) {
            o->train = 1;
        } else if (strcmp(arg, "--model") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "flag --model: needs a path, e.g. --model decider-model.txt\n");
                return 0;
            }
            o->modelPath = argv[++i];
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
            fprintf(stderr, "flag %s: unknown (flags: --small --train --model PATH --all-dims --dims LIST --kron-scale S)\n", arg);
            return 0;
        } else {
            o->paths[o->pathCount++] = argv[i];
        }
    }
    if (o->train && (o->small || o->pathCount > 0 || o->kronScale >= 0)) {
        fprintf(stderr, "flag --train: trains on its own generated family (not with --small, --kron-scale or files)\n");
        return 0;
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

// How a sweep checks and times. The default run checks every variant before
// and after timing, and times cuSPARSE and the basic kernel too. Training
// needs only the ranking of configurations over ~30 graphs x every dim: it
// checks every configuration at one dim per graph (checkAll), and at the
// other dims checks the winner, the label it learns, before accepting it.
struct SweepPlan {
    int checkAll;
    int baselines;  // cuSPARSE and the basic kernel
    int verbose;
    int warmups;
    int runs;
};

static const SweepPlan kEvaluationPlan = {1, 1, 1, kWarmupRuns, kTimedRuns};

// The fastest and slowest configurations that passed; -1 when none did.
static void pickBestWorst(DimResult* r) {
    r->best = -1;
    r->worst = -1;
    for (int c = 0; c < r->configCount; ++c) {
        if (r->ms[c] <= 0.0f) continue;
        if (r->best < 0 || r->ms[c] < r->ms[r->best]) r->best = c;
        if (r->worst < 0 || r->ms[c] > r->ms[r->worst]) r->worst = c;
    }
}

// Check, time, check again. Returns the mean time, or 0 after counting a
// failure: a variant that fails is reported and not timed.
static float checkedTime(const Judge* j, void (*launch)(const void*), const void* ctx, const char* variant,
                         const SweepPlan* plan, int* failures) {
    if (!checkBeforeTiming(j, launch, ctx, variant)) {
        ++*failures;
        return 0.0f;
    }
    const float ms = timeMs(launch, ctx, plan->warmups, plan->runs);
    if (!checkAfterTiming(j, variant)) {
        ++*failures;
        return 0.0f;
    }
    return ms;
}

// cuSPARSE, both algorithms (the faster one is the baseline), and the basic
// kernel. Returns the number of failures.
static int sweepBaselines(const Judge* judge, LaunchCtx* ctx, const SweepPlan* plan, DimResult* r) {
    int failures = 0;
    const int n = judge->d->n;
    const int dim = judge->dim;
    CUSPARSE_CHECK(cusparseCreateDnMat(&ctx->matB, n, dim, dim, judge->d->B, CUDA_R_32F, CUSPARSE_ORDER_ROW));
    CUSPARSE_CHECK(cusparseCreateDnMat(&ctx->matC, n, dim, dim, judge->d->C, CUDA_R_32F, CUSPARSE_ORDER_ROW));
    const cusparseSpMMAlg_t algs[2] = {CUSPARSE_SPMM_ALG_DEFAULT, CUSPARSE_SPMM_CSR_ALG2};
    for (int k = 0; k < 2; ++k) {
        const float alpha = 1.0f;
        const float beta = 0.0f;
        size_t bytes = 0;
        ctx->alg = algs[k];
        CUSPARSE_CHECK(cusparseSpMM_bufferSize(ctx->handle, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                               CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, ctx->matA, ctx->matB, &beta,
                                               ctx->matC, CUDA_R_32F, ctx->alg, &bytes));
        ctx->buffer = NULL;
        if (bytes > 0) CUDA_CHECK(cudaMalloc(&ctx->buffer, bytes));
        char variant[48];
        snprintf(variant, sizeof(variant), "cuSPARSE %s", kCusparseAlgNames[k]);
        r->cusparseAlgMs[k] = checkedTime(judge, launchCusparse, ctx, variant, plan, &failures);
        CUDA_CHECK(cudaFree(ctx->buffer));
        ctx->buffer = NULL;
    }
    CUSPARSE_CHECK(cusparseDestroyDnMat(ctx->matB));
    CUSPARSE_CHECK(cusparseDestroyDnMat(ctx->matC));
    for (int k = 0; k < 2; ++k) {
        if (r->cusparseAlgMs[k] > 0.0f && (r->cusparseMs == 0.0f || r->cusparseAlgMs[k] < r->cusparseMs)) {
            r->cusparseMs = r->cusparseAlgMs[k];
        }
    }
    r->basicMs = checkedTime(judge, launchBasic, ctx, "basic", plan, &failures);
    return failures;
}

// Checks and times everything at one dim. Returns the number of failures.
static int sweepDim(const Input* in, const Reference* ref, DeviceInput* d, const float* denseBMax, float* hostB,
                    float* hostC, cusparseHandle_t handle, cusparseSpMatDescr_t matA, const Options* o, int dim,
                    const SweepPlan* plan, DimResult* r) {
    int failures = 0;
    const int n = in->a.n;
    memset(r, 0, sizeof(*r));
    r->dim = dim;
    r->configCount = buildConfigs(dim, o, r->configs);
    r->best = -1;
    r->worst = -1;
    r->defaultIndex = -1;
    if (plan->verbose) printf("%s dim %d: sweeping %d configurations, the basic kernel and cuSPARSE; work per SpMM: 2 nnz dim = %.4f "
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

    ctx.handle = handle;
    ctx.matA = matA;
    if (plan->baselines) failures += sweepBaselines(&judge, &ctx, plan, r);

    int passed = 0;
    for (int c = 0; c < r->configCount; ++c) {
        char variant[32];
        configName(r->configs[c], variant, sizeof(variant));
        ctx.cfg = r->configs[c];
        if (plan->checkAll) {
            r->ms[c] = checkedTime(&judge, launchEngine, &ctx, variant, plan, &failures);
            passed += r->ms[c] > 0.0f;
        } else {
            r->ms[c] = timeMs(launchEngine, &ctx, plan->warmups, plan->runs);
        }
        const Config x = r->configs[c];
        if (x.W == kDefaultW && x.F == kDefaultF && x.V == kDefaultV && x.S == kDefaultS) r->defaultIndex = c;
    }
    pickBestWorst(r);
    // Unchecked timing: the winner is checked before it counts; a wrong one is
    // a failure, and the next fastest gets its turn.
    while (!plan->checkAll && r->best >= 0) {
        char variant[32];
        configName(r->configs[r->best], variant, sizeof(variant));
        ctx.cfg = r->configs[r->best];
        if (checkBeforeTiming(&judge, launchEngine, &ctx, variant)) break;
        ++failures;
        r->ms[r->best] = 0.0f;
        pickBestWorst(r);
    }
    if (!plan->verbose) return failures;
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

// Sweeps one input at its first in->sweepDims dims: the CPU reference, the
// device copy and cuSPARSE's descriptor live only around it. checkDim < 0 is
// the evaluation (every variant checked); otherwise the training plan, which
// checks every configuration at dim index checkDim only. Returns failures.
static int sweepInput(const Input* in, const Options* o, cusparseHandle_t handle, int checkDim, DimResult* results) {
    const int n = in->a.n;
    int maxDim = 0;
    for (int di = 0; di < in->sweepDims; ++di) maxDim = o->dims[di] > maxDim ? o->dims[di] : maxDim;
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
    if (checkDim < 0) {
        printf("\n== %s ==\n", in->name);
        printf("CPU reference: %d x %d in double, sum |C| = %.6e; narrower dims use its first columns\n", n, maxDim,
               sumAbs(ref.want, n, maxDim, maxDim));
    }

    DeviceInput d;
    uploadInput(in, &d, maxDim);
    float* hostB = (float*)checkedMalloc((size_t)n * maxDim * sizeof(float));
    float* hostC = NULL;
    CUDA_CHECK(cudaMallocHost(&hostC, (size_t)n * maxDim * sizeof(float)));
    cusparseSpMatDescr_t matA;
    CUSPARSE_CHECK(cusparseCreateCsr(&matA, n, n, in->a.nnz, d.rowPtr, d.colIdx, d.val, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    int failures = 0;
    for (int di = 0; di < o->dimCount; ++di) {
        DimResult* r = &results[di];
        if (di >= in->sweepDims) {
            memset(r, 0, sizeof(*r));
            r->dim = o->dims[di];
            r->best = r->worst = r->defaultIndex = -1;
            continue;
        }
        SweepPlan plan = kEvaluationPlan;
        if (checkDim >= 0) {
            const SweepPlan training = {di == checkDim, 0, 0, kTrainWarmupRuns, kTrainTimedRuns};
            plan = training;
        }
        failures += sweepDim(in, &ref, &d, denseBMax, hostB, hostC, handle, matA, o, o->dims[di], &plan, r);
    }
    CUSPARSE_CHECK(cusparseDestroySpMat(matA));
    CUDA_CHECK(cudaFreeHost(hostC));
    free(hostB);
    freeDeviceInput(&d);
    free(ref.want);
    free(ref.tol);
    free(denseBMax);
    if (checkDim < 0) {
        printf("GFLOP/s = 2 nnz dim / time, nnz = %d; the last three columns are speedups over the faster cuSPARSE\n",
               in->a.nnz);
        printf("  %4s %8s %-10s %8s %8s %8s %8s %-13s %8s %-13s %5s %5s %5s\n", "dim", "cuSPARSE", "{faster}",
               "other", "basic", "default", "best", "{config}", "worst", "{config}", "basic", "dflt", "best");
        for (int di = 0; di < in->sweepDims; ++di) printDimRow(in, &results[di]);
        fflush(stdout);
    }
    return failures;
}

// The index of configuration c in r's sweep, or -1 when it was not swept.
static int findConfig(const DimResult* r, Config c) {
    for (int k = 0; k < r->configCount; ++k) {
        const Config x = r->configs[k];
        if (x.W == c.W && x.F == c.F && x.V == c.V && x.S == c.S) return k;
    }
    return -1;
}

// Table 5's random baseline: one configuration drawn uniformly from the
// run's space at each (input, dim), in a fixed order from a fixed seed.
static Config randomConfig(uint64_t* state, int dim, const Options* o) {
    Config space[4 * kMaxF * 2 * 2];
    const int count = buildConfigs(dim, o, space);
    return space[splitmix64(state) % (uint64_t)count];
}

// ---------------------------------------------------------------- the GCN

// A weight of layer `layer`: in [-1, 1) / 16 in steps of 2^-19, exact in
// float, so that a layer's output stays near the scale of its input.
static float weightValue(int layer, int row, int col) {
    const uint64_t h = hash64(((uint64_t)layer << 40 | (uint64_t)row << 20 | (uint64_t)col) ^ kSeedWeights);
    return ((float)((h >> 48) & 0xffff) * 0x1p-15f - 1.0f) * 0x1p-4f;
}

// The CPU GCN, in double, carrying for every element a bound on how far an
// fp32 computation in any summation order can be from it. A dot product of
// k terms whose inputs are each off by e_t: |error| <= sum |w_t| e_t +
// gamma(k + 2) * sum |w_t| (|x_t| + e_t), gamma(k) = k u / (1 - k u), u = 2^-24
// (the same argument as the SpMM reference, applied layer after layer; relu
// does not widen an error). dense: Y = H W, H n x k, W k x m.
static double gammaOf(int k) { return k * 0x1p-24 / (1.0 - k * 0x1p-24); }

static void cpuDense(const double* h, const double* hErr, int n, int k, const float* w, int m, double* y,
                     double* yErr) {
    const double g = gammaOf(k + 2);
    for (int i = 0; i < n; ++i) {
        for (int j = 0; j < m; ++j) {
            double sum = 0.0, mag = 0.0, carried = 0.0;
            for (int t = 0; t < k; ++t) {
                const double x = h[(size_t)i * k + t], e = hErr[(size_t)i * k + t], wt = fabs((double)w[(size_t)t * m + j]);
                sum += x * w[(size_t)t * m + j];
                carried += wt * e;
                mag += wt * (fabs(x) + e);
            }
            y[(size_t)i * m + j] = sum;
            yErr[(size_t)i * m + j] = carried + g * mag;
        }
    }
}

// Y = A T, T n x m, with the same bound; relu afterwards when asked.
static void cpuAggregate(const Csr* a, const double* t, const double* tErr, int m, int relu, double* y, double* yErr) {
    for (int i = 0; i < a->n; ++i) {
        const double g = gammaOf(a->rowPtr[i + 1] - a->rowPtr[i] + 2);
        for (int j = 0; j < m; ++j) {
            double sum = 0.0, mag = 0.0, carried = 0.0;
            for (int e = a->rowPtr[i]; e < a->rowPtr[i + 1]; ++e) {
                const size_t at = (size_t)a->colIdx[e] * m + j;
                const double v = fabs((double)a->val[e]);
                sum += a->val[e] * t[at];
                carried += v * tErr[at];
                mag += v * (fabs(t[at]) + tErr[at]);
            }
            y[(size_t)i * m + j] = relu && sum < 0.0 ? 0.0 : sum;
            yErr[(size_t)i * m + j] = carried + g * mag;
        }
    }
}

struct GcnSizes {
    int in;
    int hidden;
    int classes;
};

// Both runs of the forward pass share these buffers; `aggregate` picks the
// SpMM of each layer (launchEngine or launchCusparse) and agg its context.
struct GcnCtx {
    cublasHandle_t blas;
    GcnSizes sizes;
    int n;
    const float* x;
    const float* weight[2];
    float* transformed[2];  // X W1, then H1 W2
    float* aggregated[2];   // H1 (relu'd in place), then Z
    void (*aggregate)(const void*);
    LaunchCtx agg[2];
    int layers;  // bit 0: layer 1, bit 1: layer 2
};

// snippet: gcn-layer
// One GCN layer, transform first: T = H W (cuBLAS, row-major as the
// transpose of a column-major product), then the SpMM A T at the layer's
// output width, then relu after layer 1.
static void launchGcn(const void* p) {
    const GcnCtx* g = (const GcnCtx*)p;
    const int width[3] = {g->sizes.in, g->sizes.hidden, g->sizes.classes};
    const float one = 1.0f, zero = 0.0f;
    for (int layer = 0; layer < 2; ++layer) {
        if (!(g->layers & (1 << layer))) continue;
        const float* h = layer == 0 ? g->x : g->aggregated[0];
        CUBLAS_CHECK(cublasSgemm(g->blas, CUBLAS_OP_N, CUBLAS_OP_N, width[layer + 1], g->n, width[layer], &one,
                                 g->weight[layer], width[layer + 1], h, width[layer], &zero, g->transformed[layer],
                                 width[layer + 1]));
        g->aggregate(&g->agg[layer]);
        if (layer == 0) {
            const long long count = (long long)g->n * width[1];
            const int threads = 256;  // any whole number of warps; the kernel is bandwidth-bound
            reluInPlace<<<(unsigned)((count + threads - 1) / threads), threads>>>(g->aggregated[0], count);
            CUDA_CHECK(cudaGetLastError());
        }
    }
}
// end snippet

// Runs the forward pass once on NaN-poisoned outputs and compares Z with
// the CPU. Returns the number of elements out of bounds.
static long long checkGcn(GcnCtx* g, const double* want, const double* bound, float* hostZ, const char* variant) {
    const size_t zBytes = (size_t)g->n * g->sizes.classes * sizeof(float);
    CUDA_CHECK(cudaMemset(g->aggregated[0], 0xff, (size_t)g->n * g->sizes.hidden * sizeof(float)));
    CUDA_CHECK(cudaMemset(g->aggregated[1], 0xff, zBytes));
    g->layers = 3;
    launchGcn(g);
    CUDA_CHECK(cudaDeviceSynchronize());
    CUDA_CHECK(cudaMemcpy(hostZ, g->aggregated[1], zBytes, cudaMemcpyDeviceToHost));
    long long bad = 0, first = -1;
    const long long count = (long long)g->n * g->sizes.classes;
    for (long long i = 0; i < count; ++i) {
        if (!(fabs((double)hostZ[i] - want[i]) <= bound[i] + 1e-30)) {  // NaN fails
            if (first < 0) first = i;
            ++bad;
        }
    }
    if (bad > 0) {
        fprintf(stderr, "GCN %s: %lld elements of Z wrong; first Z[%lld][%lld] = %.9g, want %.9g (bound %.3g)\n",
                variant, bad, first / g->sizes.classes, first % g->sizes.classes, hostZ[first], want[first],
                bound[first]);
    }
    return bad;
}

struct GcnTimes {
    float layerMs[2];
    float aggregateMs[2];
    float totalMs;
};

static void timeGcn(GcnCtx* g, GcnTimes* t) {
    for (int layer = 0; layer < 2; ++layer) {
        g->layers = 1 << layer;
        t->layerMs[layer] = timeMs(launchGcn, g, kWarmupRuns, kTimedRuns);
        t->aggregateMs[layer] = timeMs(g->aggregate, &g->agg[layer], kWarmupRuns, kTimedRuns);
    }
    g->layers = 3;
    t->totalMs = timeMs(launchGcn, g, kWarmupRuns, kTimedRuns);
}

// The GCN forward pass on one input, with cuSPARSE's aggregation and with
// the decider's. Returns the number of failures; *speedup gets the ratio of
// the end-to-end times.
static int runGcn(const Input* in, const GcnSizes* sizes, const Config* chosen, double* speedup) {
    const int n = in->a.n;
    const int width[3] = {sizes->in, sizes->hidden, sizes->classes};
    char c0[32], c1[32];
    configName(chosen[0], c0, sizeof(c0));
    configName(chosen[1], c1, sizeof(c1));
    printf("\nGCN forward pass on %s: %d vertices, %d -> %d -> %d features; H1 = relu(A (X W1)), Z = A (H1 W2)\n",
           in->name, n, width[0], width[1], width[2]);
    printf("dense transforms by cuBLAS SGEMM (fp32); aggregations by cuSPARSE SpMM DEFAULT in one run and by the\n");
    printf("decider's %s at dim %d and %s at dim %d in the other\n", c0, width[1], c1, width[2]);

    // Host inputs and the CPU reference with its per-element bounds.
    float* x = (float*)checkedMalloc((size_t)n * width[0] * sizeof(float));
    float* w[2];
    double* stage[2] = {NULL, NULL};  // values; bounds beside them
    double* stageErr[2] = {NULL, NULL};
    for (int i = 0; i < n; ++i) {
        for (int k = 0; k < width[0]; ++k) x[(size_t)i * width[0] + k] = denseValue(i, k);
    }
    double* x64 = (double*)checkedMalloc((size_t)n * width[0] * sizeof(double));
    double* xErr = (double*)checkedMalloc((size_t)n * width[0] * sizeof(double));
    for (size_t i = 0; i < (size_t)n * width[0]; ++i) {
        x64[i] = x[i];
        xErr[i] = 0.0;  // X is exact in float
    }
    const double* h = x64;
    const double* hErr = xErr;
    for (int layer = 0; layer < 2; ++layer) {
        const int k = width[layer], m = width[layer + 1];
        w[layer] = (float*)checkedMalloc((size_t)k * m * sizeof(float));
        for (int r = 0; r < k; ++r) {
            for (int c = 0; c < m; ++c) w[layer][(size_t)r * m + c] = weightValue(layer, r, c);
        }
        double* t = (double*)checkedMalloc((size_t)n * m * sizeof(double));
        double* tErr = (double*)checkedMalloc((size_t)n * m * sizeof(double));
        cpuDense(h, hErr, n, k, w[layer], m, t, tErr);
        stage[layer] = (double*)checkedMalloc((size_t)n * m * sizeof(double));
        stageErr[layer] = (double*)checkedMalloc((size_t)n * m * sizeof(double));
        cpuAggregate(&in->a, t, tErr, m, layer == 0, stage[layer], stageErr[layer]);
        free(t);
        free(tErr);
        h = stage[layer];
        hErr = stageErr[layer];
    }
    free(x64);
    free(xErr);
    free(stage[0]);
    free(stageErr[0]);
    double maxBound = 0.0, maxAbs = 0.0;
    for (size_t i = 0; i < (size_t)n * width[2]; ++i) {
        maxBound = stageErr[1][i] > maxBound ? stageErr[1][i] : maxBound;
        maxAbs = fabs(stage[1][i]) > maxAbs ? fabs(stage[1][i]) : maxAbs;
    }
    printf("CPU reference in double, each element with its propagated fp32 error bound: largest bound %.3e, "
           "largest |Z| %.3e\n", maxBound, maxAbs);

    // Device: the graph in both layouts, X, the weights, the four activations.
    DeviceInput d;
    uploadInput(in, &d, 1);
    GcnCtx g;
    memset(&g, 0, sizeof(g));
    CUBLAS_CHECK(cublasCreate(&g.blas));
    CUBLAS_CHECK(cublasSetMathMode(g.blas, CUBLAS_DEFAULT_MATH));  // fp32 arithmetic, as the bound assumes
    g.sizes = *sizes;
    g.n = n;
    float* dx = NULL;
    CUDA_CHECK(cudaMalloc(&dx, (size_t)n * width[0] * sizeof(float)));
    CUDA_CHECK(cudaMemcpy(dx, x, (size_t)n * width[0] * sizeof(float), cudaMemcpyHostToDevice));
    g.x = dx;
    cusparseHandle_t sparse;
    CUSPARSE_CHECK(cusparseCreate(&sparse));
    cusparseSpMatDescr_t matA;
    CUSPARSE_CHECK(cusparseCreateCsr(&matA, n, n, in->a.nnz, d.rowPtr, d.colIdx, d.val, CUSPARSE_INDEX_32I,
                                     CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, CUDA_R_32F));
    DeviceInput layerView[2];
    for (int layer = 0; layer < 2; ++layer) {
        const int m = width[layer + 1];
        float* dw = NULL;
        CUDA_CHECK(cudaMalloc(&dw, (size_t)width[layer] * m * sizeof(float)));
        CUDA_CHECK(cudaMemcpy(dw, w[layer], (size_t)width[layer] * m * sizeof(float), cudaMemcpyHostToDevice));
        g.weight[layer] = dw;
        CUDA_CHECK(cudaMalloc(&g.transformed[layer], (size_t)n * m * sizeof(float)));
        CUDA_CHECK(cudaMalloc(&g.aggregated[layer], (size_t)n * m * sizeof(float)));
        // The layer's SpMM reads its transform and writes its aggregation.
        layerView[layer] = d;
        layerView[layer].B = g.transformed[layer];
        layerView[layer].C = g.aggregated[layer];
        LaunchCtx* a = &g.agg[layer];
        a->d = &layerView[layer];
        a->dim = m;
        a->cfg = chosen[layer];
        a->handle = sparse;
        a->matA = matA;
        a->alg = CUSPARSE_SPMM_ALG_DEFAULT;
        CUSPARSE_CHECK(cusparseCreateDnMat(&a->matB, n, m, m, layerView[layer].B, CUDA_R_32F, CUSPARSE_ORDER_ROW));
        CUSPARSE_CHECK(cusparseCreateDnMat(&a->matC, n, m, m, layerView[layer].C, CUDA_R_32F, CUSPARSE_ORDER_ROW));
        const float alpha = 1.0f, beta = 0.0f;
        size_t bytes = 0;
        CUSPARSE_CHECK(cusparseSpMM_bufferSize(sparse, CUSPARSE_OPERATION_NON_TRANSPOSE,
                                               CUSPARSE_OPERATION_NON_TRANSPOSE, &alpha, matA, a->matB, &beta, a->matC,
                                               CUDA_R_32F, a->alg, &bytes));
        if (bytes > 0) CUDA_CHECK(cudaMalloc(&a->buffer, bytes));
    }

    float* hostZ = (float*)checkedMalloc((size_t)n * width[2] * sizeof(float));
    void (*aggregators[2])(const void*) = {launchCusparse, launchEngine};
    const char* names[2] = {"cuSPARSE", "decider"};
    GcnTimes times[2];
    memset(times, 0, sizeof(times));
    int failures = 0;
    for (int run = 0; run < 2; ++run) {
        g.aggregate = aggregators[run];
        if (checkGcn(&g, stage[1], stageErr[1], hostZ, names[run]) > 0) {
            ++failures;
            continue;
        }
        timeGcn(&g, &times[run]);
    }
    if (failures == 0) {
        printf("both runs match the CPU on all %lld elements of Z, each within its bound\n", (long long)n * width[2]);
    }
    printf("milliseconds, mean of %d runs; aggregate = the SpMM alone, layer = transform + aggregate (+ relu)\n",
           kTimedRuns);
    printf("  %-10s %10s %10s %10s %10s %10s\n", "run", "agg 1", "layer 1", "agg 2", "layer 2", "end to end");
    for (int run = 0; run < 2; ++run) {
        const GcnTimes* t = &times[run];
        printf("~ %-10s %10.4f %10.4f %10.4f %10.4f %10.4f\n", names[run], t->aggregateMs[0], t->layerMs[0],
               t->aggregateMs[1], t->layerMs[1], t->totalMs);
    }
    *speedup = times[1].totalMs > 0.0f ? times[0].totalMs / times[1].totalMs : 0.0;
    printf("~ aggregation share of the cuSPARSE forward pass: %.2f; decider over cuSPARSE end to end: %.2f\n",
           times[0].totalMs > 0.0f ? (times[0].aggregateMs[0] + times[0].aggregateMs[1]) / times[0].totalMs : 0.0,
           *speedup);

    for (int layer = 0; layer < 2; ++layer) {
        CUSPARSE_CHECK(cusparseDestroyDnMat(g.agg[layer].matB));
        CUSPARSE_CHECK(cusparseDestroyDnMat(g.agg[layer].matC));
        CUDA_CHECK(cudaFree(g.agg[layer].buffer));
        CUDA_CHECK(cudaFree((void*)g.weight[layer]));
        CUDA_CHECK(cudaFree(g.transformed[layer]));
        CUDA_CHECK(cudaFree(g.aggregated[layer]));
        free(w[layer]);
    }
    CUSPARSE_CHECK(cusparseDestroySpMat(matA));
    CUSPARSE_CHECK(cusparseDestroy(sparse));
    CUBLAS_CHECK(cublasDestroy(g.blas));
    CUDA_CHECK(cudaFree(dx));
    freeDeviceInput(&d);
    free(hostZ);
    free(x);
    free(stage[1]);
    free(stageErr[1]);
    return failures;
}

// ------------------------------------------------------------------- main

static Input* newInput(Input* inputs, int* count) {
    Input* in = &inputs[(*count)++];
    memset(in, 0, sizeof(*in));
    in->reorderedFrom = -1;
    return in;
}

// The Matrix Market inputs: the user's files, or the course's word graph.
// Read before the model and the generators, so a bad file is refused at once.
static int loadInputFiles(const Options* o, Input* inputs, int* count) {
    *count = 0;
    const int files = o->pathCount > 0 ? o->pathCount : 1;
    for (int p = 0; p < files; ++p) {
        const char* path = o->pathCount > 0 ? o->paths[p] : kDataPath;
        Input* in = newInput(inputs, count);
        if (!loadMatrixMarket(path, &in->a)) {
            --*count;  // nothing of it was kept
            return 0;
        }
        if (o->pathCount > 0) {
            const char* base = strrchr(path, '/');
            snprintf(in->name, sizeof(in->name), "%s", base ? base + 1 : path);
            snprintf(in->about, sizeof(in->about), "Matrix Market file %s", path);
        } else {
            snprintf(in->name, sizeof(in->name), "words");
            snprintf(in->about, sizeof(in->about), "%s, CUDA documentation word graph, ids in alphabetical order", path);
        }
    }
    return 1;
}

// The reordered copy of inputs[from]: RCM ids, swept at the first few dims.
static void addReordered(Input* inputs, int* count, int from, const Options* o) {
    const Input* src = &inputs[from];
    char name[sizeof(src->name)];
    memcpy(name, src->name, sizeof(name));
    Input* in = newInput(inputs, count);
    int* newId = rcmOrder(&src->a);
    permuteCsr(&src->a, newId, &in->a);
    free(newId);
    snprintf(in->name, sizeof(in->name), "%.35s-rcm", name);
    snprintf(in->about, sizeof(in->about), "%s with ids renumbered by reverse Cuthill-McKee", name);
    in->reorderedFrom = from;
    in->sweepDims = o->dimCount < kReorderDims ? o->dimCount : kReorderDims;
}

// The generated evaluation inputs, after words; then the reordered copies of
// the three whose ids are scattered (words, kron, community-shuffled).
static void generateInputs(const Options* o, Input* inputs, int* count) {
    Input* in = newInput(inputs, count);
    generateKronecker(o->kronScale, kKronEdgeFactor, kSeedKron ^ (uint64_t)o->kronScale, 1, &in->a);
    snprintf(in->name, sizeof(in->name), "kron-%d", o->kronScale);
    snprintf(in->about, sizeof(in->about), "Graph500 Kronecker, scale %d, edge factor %d, ids shuffled", o->kronScale,
             kKronEdgeFactor);
    const int kron = *count - 1;

    const int meshSide = o->small ? kMeshSideSmall : kMeshSide;
    in = newInput(inputs, count);
    generateMesh3d(meshSide, &in->a);
    snprintf(in->name, sizeof(in->name), "mesh3d-%d", meshSide);
    snprintf(in->about, sizeof(in->about), "27-point stencil on a %d^3 grid, diagonal included, ids row-major",
             meshSide);

    const int communityN = o->small ? kCommunityVerticesSmall : kCommunityVertices;
    const CommunityShape shape = {kCommunityMinSize, kCommunityMaxSize, kCommunityInside, kCommunityOutside};
    in = newInput(inputs, count);
    generateCommunity(communityN, kSeedCommunity ^ (uint64_t)communityN, shape, &in->a);
    snprintf(in->name, sizeof(in->name), "community");
    snprintf(in->about, sizeof(in->about),
             "%d vertices in clusters of %d..%d consecutive ids, pairs inside joined at p = %.1f, %d random edges each",
             communityN, kCommunityMinSize, kCommunityMaxSize, kCommunityInside, kCommunityOutside);
    const int community = *count - 1;

    const int roadSide = o->small ? kRoadSideSmall : kRoadSide;
    in = newInput(inputs, count);
    generateRoad(roadSide, kSeedRoad, kRoadKeep, &in->a);
    snprintf(in->name, sizeof(in->name), "road-%d", roadSide);
    snprintf(in->about, sizeof(in->about), "%d x %d grid keeping %.0f%% of its edges, ids row-major", roadSide,
             roadSide, 100.0 * kRoadKeep);

    in = newInput(inputs, count);
    shuffleCsr(&inputs[community].a, kSeedShuffle, &in->a);
    snprintf(in->name, sizeof(in->name), "community-shuffled");
    snprintf(in->about, sizeof(in->about), "community with its ids shuffled: the same graph, its locality hidden");
    const int shuffled = *count - 1;

    for (int i = 0; i < *count; ++i) inputs[i].sweepDims = o->dimCount;
    addReordered(inputs, count, 0, o);
    addReordered(inputs, count, kron, o);
    addReordered(inputs, count, shuffled, o);
}

// ------------------------------------------------------ the training family

// The graphs --train learns from: the evaluation inputs' families (Kronecker,
// meshes, roads, communities) at other sizes, shapes and seeds, plus random
// graphs (uniform, banded, power-law), some with shuffled ids, 4k..262k rows.
enum Family { kKron, kMesh, kRoad, kCommunity, kRandom };

struct TrainGraph {
    Family family;
    int size;       // kron: scale; mesh, road: side; community, random: vertices
    int count;      // kron: edge factor; community: largest cluster; random: partners per vertex
    int window;     // random: partners within +-window ids (>= size: anywhere)
    double shape;   // road: share kept; community: p inside; random: power-law exponent (0: none)
    int shuffle;
};

static const TrainGraph kTrainGraphs[] = {
    {kKron, 15, 8, 0, 0, 0},          {kKron, 15, 32, 0, 0, 1},         {kKron, 16, 4, 0, 0, 1},
    {kKron, 16, 16, 0, 0, 0},         {kKron, 17, 8, 0, 0, 1},          {kKron, 17, 16, 0, 0, 0},
    {kKron, 16, 32, 0, 0, 1},         {kKron, 18, 4, 0, 0, 1},          {kMesh, 32, 0, 0, 0, 0},
    {kMesh, 40, 0, 0, 0, 0},          {kMesh, 50, 0, 0, 0, 0},          {kMesh, 60, 0, 0, 0, 0},
    {kMesh, 40, 0, 0, 0, 1},          {kRoad, 180, 0, 0, 0.5, 0},       {kRoad, 256, 0, 0, 0.7, 0},
    {kRoad, 360, 0, 0, 0.9, 0},       {kRoad, 500, 0, 0, 0.6, 0},       {kRoad, 256, 0, 0, 0.8, 1},
    {kCommunity, 32768, 32, 0, 0.5, 0},  {kCommunity, 65536, 64, 0, 0.9, 0},  {kCommunity, 131072, 24, 0, 0.7, 0},
    {kCommunity, 200000, 48, 0, 0.3, 0}, {kCommunity, 65536, 64, 0, 0.7, 1},  {kCommunity, 100000, 16, 0, 0.9, 1},
    {kRandom, 65536, 4, 1 << 30, 0, 0},  {kRandom, 131072, 16, 1 << 30, 0, 0}, {kRandom, 50000, 48, 1 << 30, 0, 0},
    {kRandom, 100000, 8, 64, 0, 0},      {kRandom, 200000, 12, 512, 0, 0},     {kRandom, 131072, 8, 1 << 30, 0.8, 0},
    {kRandom, 65536, 16, 1 << 30, 0.6, 1},
    // Larger hub-heavy graphs: the first model saw no power-law graph above
    // 4 M nonzeros, and sent kron-18 (7.6 M) to a leaf learned on uniform ones.
    {kKron, 17, 32, 0, 0, 1},         {kKron, 18, 12, 0, 0, 1},         {kKron, 18, 20, 0, 0, 0},
    {kRandom, 262144, 24, 1 << 30, 0.7, 1},
    // Small hub-heavy graphs: the second model had no graph under 32k rows
    // and sent the 3325-row word graph, whose one hub ("the") holds 1001
    // entries, to an S0 leaf learned on hub-free graphs (0.08 at dims 16, 32).
    {kKron, 12, 8, 0, 0, 1},          {kKron, 13, 4, 0, 0, 0},
    {kRandom, 4096, 8, 1 << 30, 0.8, 0}, {kRandom, 8192, 6, 1 << 30, 0.7, 1},
};
static const int kTrainGraphCount = (int)(sizeof(kTrainGraphs) / sizeof(kTrainGraphs[0]));

static void generateTrainGraph(int index, Input* in) {
    const TrainGraph* g = &kTrainGraphs[index];
    const uint64_t seed = kSeedTrain + (uint64_t)index;
    Csr plain;
    memset(&plain, 0, sizeof(plain));
    const char* family = "";
    switch (g->family) {
        case kKron:
            generateKronecker(g->size, g->count, seed, 0, &plain);
            family = "kron";
            break;
        case kMesh:
            generateMesh3d(g->size, &plain);
            family = "mesh3d";
            break;
        case kRoad:
            generateRoad(g->size, seed, g->shape, &plain);
            family = "road";
            break;
        case kCommunity: {
            const CommunityShape shape = {g->count / 4, g->count, g->shape, 1 + index % 3};
            generateCommunity(g->size, seed, shape, &plain);
            family = "community";
            break;
        }
        case kRandom:
            generateRandom(g->size, g->count, g->window, g->shape, seed, &plain);
            family = g->shape > 0.0 ? "powerlaw" : g->window < g->size ? "banded" : "uniform";
            break;
    }
    if (g->shuffle) {
        shuffleCsr(&plain, seed ^ kSeedShuffle, &in->a);
        freeCsr(&plain);
    } else {
        in->a = plain;
    }
    snprintf(in->name, sizeof(in->name), "t%02d-%s-%d%s", index, family, g->size, g->shuffle ? "-shuffled" : "");
    in->reorderedFrom = -1;
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

// The part-1 tables over the inputs as given (the reordered copies have
// their own table): oracle over cuSPARSE, F per dim, W/V/S per input, and how
// much each parameter matters.
static void printSweepSummaries(const Options* o, const Input* inputs, int inputCount, const DimResult* results) {
    int originals = 0;
    for (int ii = 0; ii < inputCount; ++ii) originals += inputs[ii].reorderedFrom < 0;
    printf("\nBest configuration over cuSPARSE (the oracle: the whole space measured, the fastest kept)\n");
    printf("  %-18s", "input");
    for (int di = 0; di < o->dimCount; ++di) printf(" %6d", o->dims[di]);
    printf("\n");
    double logSum = 0.0;
    int logCount = 0;
    double minSpeedup = 0.0;
    for (int ii = 0; ii < inputCount; ++ii) {
        if (inputs[ii].reorderedFrom >= 0) continue;
        printf("~ %-18s", inputs[ii].name);
        for (int di = 0; di < o->dimCount; ++di) {
            const DimResult* r = &results[ii * o->dimCount + di];
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
        if (inputs[ii].reorderedFrom >= 0) continue;
        for (int di = 0; di < o->dimCount; ++di) {
            const DimResult* r = &results[ii * o->dimCount + di];
            if (r->best >= 0 && r->cusparseMs > 0) {
                printf("~ plot: speedup-per-dim | %s | %d | %.3f\n", inputs[ii].name, r->dim,
                       r->cusparseMs / r->ms[r->best]);
            }
        }
    }

    // Table 2 of the paper for F: at each dim, on how many inputs each F wins.
    printf("\nWhich F wins at each dim: inputs won, of %d (the paper's Table 2)\n", originals);
    printf("  %-6s", "F");
    for (int di = 0; di < o->dimCount; ++di) printf(" %6d", o->dims[di]);
    printf("\n");
    int maxF = 1;
    for (int di = 0; di < o->dimCount; ++di) maxF = maxFFor(o->dims[di]) > maxF ? maxFFor(o->dims[di]) : maxF;
    for (int F = 1; F <= maxF; ++F) {
        printf("~ F=%-4d", F);
        for (int di = 0; di < o->dimCount; ++di) {
            if (F > maxFFor(o->dims[di])) {
                printf(" %6s", "-");
                continue;
            }
            int wins = 0;
            for (int ii = 0; ii < inputCount; ++ii) {
                if (inputs[ii].reorderedFrom >= 0) continue;
                const DimResult* r = &results[ii * o->dimCount + di];
                wins += r->best >= 0 && r->configs[r->best].F == F;
            }
            printf(" %6d", wins);
        }
        printf("\n");
    }

    printf("\nWhich W, V and S win on each input: dims won, of %d\n", o->dimCount);
    printf("  %-18s %4s %4s %4s %4s   %4s %4s   %4s %4s\n", "input", "W1", "W2", "W4", "W8", "V1", "V2", "S0", "S1");
    for (int ii = 0; ii < inputCount; ++ii) {
        if (inputs[ii].reorderedFrom >= 0) continue;
        int w[4] = {0, 0, 0, 0}, v[2] = {0, 0}, s[2] = {0, 0};
        for (int di = 0; di < o->dimCount; ++di) {
            const DimResult* r = &results[ii * o->dimCount + di];
            if (r->best < 0) continue;
            const Config c = r->configs[r->best];
            for (int k = 0; k < 4; ++k) w[k] += c.W == kWarpChoices[k];
            ++v[c.V - 1];
            ++s[c.S];
        }
        printf("~ %-18s %4d %4d %4d %4d   %4d %4d   %4d %4d\n", inputs[ii].name, w[0], w[1], w[2], w[3], v[0], v[1],
               s[0], s[1]);
    }

    printf("\nHow much each parameter matters: best time with it at its worst value (others re-tuned)\n");
    printf("over the best time, geometric mean over dims (1.00 = the parameter does not matter)\n");
    printf("  %-18s %6s %6s %6s %6s\n", "input", "W", "F", "V", "S");
    for (int ii = 0; ii < inputCount; ++ii) {
        if (inputs[ii].reorderedFrom >= 0) continue;
        double logs[4] = {0, 0, 0, 0};
        for (int di = 0; di < o->dimCount; ++di) {
            for (int which = 0; which < 4; ++which) logs[which] += log(sensitivity(&results[ii * o->dimCount + di], which));
        }
        printf("~ %-18s %6.2f %6.2f %6.2f %6.2f\n", inputs[ii].name, exp(logs[0] / o->dimCount),
               exp(logs[1] / o->dimCount), exp(logs[2] / o->dimCount), exp(logs[3] / o->dimCount));
    }

    const double geomean = logCount > 0 ? exp(logSum / logCount) : 0.0;
    printf("\n~ goal: best configuration >= 1.5x cuSPARSE, geometric mean over inputs x dims: {%s}\n",
           geomean >= 1.5 ? "met" : "missed");
    printf("~ goal: never below 0.9x cuSPARSE on any (input, dim): {%s}\n", minSpeedup >= 0.9 ? "met" : "missed");
    printf("headline: oracle_vs_cusparse_geomean = %.2f\n", geomean);
    printf("headline: oracle_vs_cusparse_min = %.2f\n", minSpeedup);

}

static void freeInputs(Input* inputs, int count) {
    for (int i = 0; i < count; ++i) freeInput(&inputs[i]);
    free(inputs);
}

// The first CUDA call. Prints the no-device line and returns 0 without a GPU.
static int deviceFound(void) {
    int deviceCount = 0;
    const cudaError_t probe = cudaGetDeviceCount(&deviceCount);
    if (probe != cudaSuccess || deviceCount == 0) {
        printf("no CUDA device found (%s): the host part above ran, the GPU part did not\n",
               probe != cudaSuccess ? cudaGetErrorString(probe) : "0 devices");
        return 0;
    }
    return 1;
}

static void printDevice(cudaDeviceProp* prop) {
    CUDA_CHECK(cudaGetDeviceProperties(prop, 0));
    int driver = 0, runtime = 0;
    CUDA_CHECK(cudaDriverGetVersion(&driver));
    CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
    printf("\n~ GPU: {%s}, compute capability %d.%d, %d SMs, {driver %d.%d, runtime %d.%d}\n", prop->name, prop->major,
           prop->minor, prop->multiProcessorCount, driver / 1000, (driver % 1000) / 10, runtime / 1000,
           (runtime % 1000) / 10);
}

static double geomeanOf(double logSum, int count) { return count > 0 ? exp(logSum / count) : 0.0; }

// ----------------------------------------------------------- --train

static int trainMain(const Options* o) {
    Input* inputs = (Input*)checkedMalloc((size_t)kTrainGraphCount * sizeof(Input));
    memset(inputs, 0, (size_t)kTrainGraphCount * sizeof(Input));
    printf("Training the decider: %d generated graphs (none of them an evaluation input), dims", kTrainGraphCount);
    for (int i = 0; i < o->dimCount; ++i) printf(" %d", o->dims[i]);
    printf(".\nOne CART tree per dim, depth <= %d, >= %d graphs per leaf, each leaf the configuration with the best\n",
           kTreeDepth, kMinLeafSamples);
    printf("geometric mean of normalized performance (best time / its time) over its graphs. Each configuration: %d warm-up + %d\n",
           kTrainWarmupRuns, kTrainTimedRuns);
    printf("timed runs. The CPU checks every configuration at one dim per graph (graph g at dim number g mod %d),\n",
           o->dimCount);
    printf("and at every dim the winner, before its label is kept.\n\n");
    printf("  %-29s %7s %8s %7s %7s %6s %6s %6s\n", "graph", "n", "nnz", "d_hat", "cv_hat", "pr_2", "sr_1", "b/n");
    for (int g = 0; g < kTrainGraphCount; ++g) {
        generateTrainGraph(g, &inputs[g]);
        inputs[g].sweepDims = o->dimCount;
        analyseInput(&inputs[g]);
        const Features* f = &inputs[g].f;
        printf("  %-29s %7d %8d %7.2f %7.2f %6.3f %6.3f %6.4f\n", inputs[g].name, f->rows, f->nnz, f->meanDegree,
               f->degreeCv, f->paddingRatio[1], f->splitRatio[0], f->meanBandwidth / f->rows);
        fflush(stdout);
    }
    if (!deviceFound()) {
        freeInputs(inputs, kTrainGraphCount);
        return 2;
    }
    cudaDeviceProp prop;
    printDevice(&prop);
    cusparseHandle_t handle;
    CUSPARSE_CHECK(cusparseCreate(&handle));

    // Per dim, the training set: features and normalized performance vectors.
    TrainSet sets[kMaxDims];
    DimResult* results = (DimResult*)checkedMalloc((size_t)o->dimCount * sizeof(DimResult));
    for (int di = 0; di < o->dimCount; ++di) {
        TrainSet* set = &sets[di];
        set->samples = kTrainGraphCount;
        set->configs = (Config*)checkedMalloc(sizeof(results[0].configs));
        set->configCount = buildConfigs(o->dims[di], o, set->configs);
        set->x = (double*)checkedMalloc((size_t)kTrainGraphCount * kFeatureCount * sizeof(double));
        set->perf = (double*)checkedMalloc((size_t)kTrainGraphCount * set->configCount * sizeof(double));
    }
    int failures = 0;
    const time_t started = time(NULL);
    printf("\nSweeping (winners in braces, one per dim):\n");
    for (int g = 0; g < kTrainGraphCount; ++g) {
        const int checkDim = g % o->dimCount;
        failures += sweepInput(&inputs[g], o, handle, checkDim, results);
        printf("~ [%2d/%d] %-29s checked at dim %3d; winners", g + 1, kTrainGraphCount, inputs[g].name,
               o->dims[checkDim]);
        for (int di = 0; di < o->dimCount; ++di) {
            const DimResult* r = &results[di];
            TrainSet* set = &sets[di];
            featureVector(&inputs[g].f, set->x + (size_t)g * kFeatureCount);
            char name[32] = "none";
            if (r->best >= 0) configName(r->configs[r->best], name, sizeof(name));
            printf(" {%s}", name);
            for (int c = 0; c < set->configCount; ++c) {
                set->perf[(size_t)g * set->configCount + c] =
                    r->best >= 0 && r->ms[c] > 0.0f ? r->ms[r->best] / r->ms[c] : 0.0;
            }
        }
        printf("; %.0f s so far\n", difftime(time(NULL), started));
        fflush(stdout);
    }
    CUSPARSE_CHECK(cusparseDestroy(handle));
    free(results);

    // Fit, report, and estimate honestly: leave each graph out, fit on the
    // rest, and see how the tree does on the graph it never saw.
    Model model;
    memset(&model, 0, sizeof(model));
    snprintf(model.path, sizeof(model.path), "%s", o->modelPath);
    const time_t now = time(NULL);
    char date[32];
    strftime(date, sizeof(date), "%Y-%m-%d", gmtime(&now));
    snprintf(model.provenance[0], sizeof(model.provenance[0]), "%.100s", prop.name);
    snprintf(model.provenance[1], sizeof(model.provenance[1]), "%s", date);
    snprintf(model.provenance[2], sizeof(model.provenance[2]),
             "%d generated graphs (kron, mesh3d, road, community, uniform, banded, powerlaw; 4k..262k rows)",
             kTrainGraphCount);
    snprintf(model.provenance[3], sizeof(model.provenance[3]),
             "%d warm-up + %d timed runs per configuration, at dims", kTrainWarmupRuns, kTrainTimedRuns);
    for (int di = 0; di < o->dimCount; ++di) {
        const size_t len = strlen(model.provenance[3]);
        snprintf(model.provenance[3] + len, sizeof(model.provenance[3]) - len, " %d", o->dims[di]);
    }
    int* all = (int*)checkedMalloc((size_t)kTrainGraphCount * sizeof(int));
    printf("\nThe trees (the model file's own lines; go left when FEATURE <= THRESHOLD):\n");
    printf("After each tree: best time / predicted configuration's time, geometric mean over the graphs, on its own\n");
    printf("training graphs and left out (each graph predicted by a tree fitted on the other %d)\n",
           kTrainGraphCount - 1);
    for (int di = 0; di < o->dimCount; ++di) {
        const TrainSet* set = &sets[di];
        for (int g = 0; g < kTrainGraphCount; ++g) all[g] = g;
        Tree* tree = &model.trees[model.treeCount++];
        fitTree(set, all, kTrainGraphCount, o->dims[di], tree);
        printTree(stdout, tree, "~ {", "}");
        double fitLog = 0.0, outLog = 0.0;
        Tree held;
        for (int g = 0; g < kTrainGraphCount; ++g) {
            fitLog += log(fmax(perfOfPrediction(set, tree, g), 1e-3));
            int k = 0;
            for (int h = 0; h < kTrainGraphCount; ++h) {
                if (h != g) all[k++] = h;
            }
            fitTree(set, all, kTrainGraphCount - 1, o->dims[di], &held);
            outLog += log(fmax(perfOfPrediction(set, &held, g), 1e-3));
        }
        printf("~ dim %3d: %d nodes; on its training graphs %.3f, left out %.3f\n", o->dims[di], tree->nodeCount,
               exp(fitLog / kTrainGraphCount), exp(outLog / kTrainGraphCount));
    }
    free(all);
    for (int di = 0; di < o->dimCount; ++di) {
        free(sets[di].configs);
        free(sets[di].x);
        free(sets[di].perf);
    }
    freeInputs(inputs, kTrainGraphCount);

    FILE* out = fopen(o->modelPath, "w");
    if (out == NULL) {
        fprintf(stderr, "%s: cannot write: %s\n", o->modelPath, strerror(errno));
        return EXIT_FAILURE;
    }
    writeModel(&model, out);
    if (fclose(out) != 0) {
        fprintf(stderr, "%s: cannot write: %s\n", o->modelPath, strerror(errno));
        return EXIT_FAILURE;
    }
    // Read it back through the same validation a default run uses.
    Model check;
    if (!loadModel(o->modelPath, &check) || !modelCovers(&check, o->dims, o->dimCount, "a dim just trained")) ++failures;
    printf("\nwrote %s: %d trees; read back and validated\n", o->modelPath, model.treeCount);
    if (failures > 0) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        printf("FAIL\n");
        return EXIT_FAILURE;
    }
    printf("PASS\n");
    return EXIT_SUCCESS;
}

// ------------------------------------------------------- the default run

// Table 5 of the paper, and its headlines. Returns nothing; prints.
static void printDeciderTable(const Options* o, const Input* inputs, int inputCount, const DimResult* results,
                              const Config* predicted, const Config* drawn) {
    printf("\nThe decider against the oracle (the paper's Table 5): best time / time of the predicted configuration,\n");
    printf("and of the random one, per dim, geometric mean over the %s inputs (1.00 = the oracle's own pick)\n",
           "evaluation");
    printf("  %-18s", "input");
    for (int di = 0; di < o->dimCount; ++di) printf("  %5d/rnd  ", o->dims[di]);
    printf("\n");
    double logPred[kMaxDims] = {0}, logRand[kMaxDims] = {0};
    int counted[kMaxDims] = {0};
    double allPred = 0.0, allRand = 0.0, allCusparse = 0.0;
    int allCount = 0, cusparseCount = 0, unswept = 0;
    for (int ii = 0; ii < inputCount; ++ii) {
        if (inputs[ii].reorderedFrom >= 0) continue;
        printf("~ %-18s", inputs[ii].name);
        for (int di = 0; di < o->dimCount; ++di) {
            const DimResult* r = &results[ii * o->dimCount + di];
            const int p = findConfig(r, predicted[ii * o->dimCount + di]);
            const int q = findConfig(r, drawn[ii * o->dimCount + di]);
            if (r->best < 0 || p < 0 || q < 0) {
                printf("  %5s %5s", "-", "-");
                unswept += r->best >= 0;
                continue;
            }
            const double best = r->ms[r->best];
            const double pred = r->ms[p] > 0.0f ? best / r->ms[p] : 1e-3;  // a failed pick counts as 1000x slower
            const double rnd = r->ms[q] > 0.0f ? best / r->ms[q] : 1e-3;
            printf("  %5.3f %5.3f", pred, rnd);
            logPred[di] += log(pred);
            logRand[di] += log(rnd);
            ++counted[di];
            allPred += log(pred);
            allRand += log(rnd);
            ++allCount;
            if (r->cusparseMs > 0.0f && r->ms[p] > 0.0f) {
                allCusparse += log(r->cusparseMs / r->ms[p]);
                ++cusparseCount;
            }
        }
        printf("\n");
    }
    if (unswept > 0) printf("  ('-': a configuration outside this run's sweep, not counted: %d)\n", unswept);
    printf("~ %-18s", "geomean");
    for (int di = 0; di < o->dimCount; ++di) {
        printf("  %5.3f %5.3f", geomeanOf(logPred[di], counted[di]), geomeanOf(logRand[di], counted[di]));
    }
    printf("\n");
    printf("plotspec: decider-per-dim | line | Decider and random configuration over the oracle | dim | best time / "
           "its time\n");
    for (int di = 0; di < o->dimCount; ++di) {
        if (counted[di] == 0) continue;
        printf("~ plot: decider-per-dim | decider | %d | %.3f\n", o->dims[di], geomeanOf(logPred[di], counted[di]));
        printf("~ plot: decider-per-dim | random | %d | %.3f\n", o->dims[di], geomeanOf(logRand[di], counted[di]));
    }
    const double decider = geomeanOf(allPred, allCount);
    printf("~ goal: decider >= 0.97 of the oracle, geometric mean over inputs x dims: {%s}\n",
           decider >= 0.97 ? "met" : "missed");
    printf("headline: decider_vs_oracle_geomean = %.3f\n", decider);
    printf("headline: random_vs_oracle_geomean = %.3f\n", geomeanOf(allRand, allCount));
    printf("headline: decider_vs_cusparse_geomean = %.2f\n", geomeanOf(allCusparse, cusparseCount));
}

// Table 6 of the paper: over cuSPARSE on the input as given, cuSPARSE on the
// reordered input, and the best configuration without and with reordering.
static void printReorderTable(const Options* o, const Input* inputs, int inputCount, const DimResult* results) {
    printf("\nReordering (the paper's Table 6): speedups over cuSPARSE on the ids as given; the reordered inputs\n");
    printf("are swept at the first %d dims only\n", kReorderDims);
    printf("  %-22s %4s %10s %10s %10s\n", "input", "dim", "cuSPARSE-r", "best", "best-r");
    double logGain = 0.0;
    int gainCount = 0;
    printf("plotspec: reorder | bar | Reordering: speedup over cuSPARSE without it | input | speedup, geometric mean "
           "over dims\n");
    for (int ri = 0; ri < inputCount; ++ri) {
        const int from = inputs[ri].reorderedFrom;
        if (from < 0) continue;
        double logs[3] = {0, 0, 0};
        int count = 0;
        for (int di = 0; di < inputs[ri].sweepDims; ++di) {
            const DimResult* before = &results[from * o->dimCount + di];
            const DimResult* after = &results[ri * o->dimCount + di];
            if (before->best < 0 || after->best < 0 || before->cusparseMs <= 0.0f || after->cusparseMs <= 0.0f) {
                continue;
            }
            const double base = before->cusparseMs;
            const double s[3] = {base / after->cusparseMs, base / before->ms[before->best], base / after->ms[after->best]};
            printf("~ %-22s %4d %10.2f %10.2f %10.2f\n", inputs[from].name, o->dims[di], s[0], s[1], s[2]);
            for (int k = 0; k < 3; ++k) logs[k] += log(s[k]);
            ++count;
            logGain += log(s[2] / s[1]);
            ++gainCount;
        }
        const char* series[3] = {"cuSPARSE reordered", "best", "best reordered"};
        for (int k = 0; k < 3 && count > 0; ++k) {
            printf("~ plot: reorder | %s | %s | %.3f\n", series[k], inputs[from].name, geomeanOf(logs[k], count));
        }
    }
    printf("headline: reorder_speedup_geomean = %.2f\n", geomeanOf(logGain, gainCount));
}

static int evaluateMain(Options* o, const Model* model, Input* inputs, int inputCount) {
    // ---------------------------------------------------------- host part
    printf("SpMM C = A * B with a parametric kernel: W warps per block, F strips per lane, V rows per vector,\n");
    printf("S rows split into pieces. %d inputs; dims", inputCount);
    for (int i = 0; i < o->dimCount; ++i) printf(" %d", o->dims[i]);
    printf(".%s\n", o->small ? " Small run: W in {1, 4} only, for sanitizer speed." : "");
    printf("Features (the paper's Table 3): size n, n_hat, nnz, delta; degree d, d_hat, d_max, CV, CV_hat, SR_1,\n");
    printf("SR_2; locality rho, b, b_max, PR_2 (PR_1 is 0 by definition and is not a feature).\n");
    for (int i = 0; i < inputCount; ++i) {
        analyseInput(&inputs[i]);
        printInputFacts(&inputs[i]);
        const int from = inputs[i].reorderedFrom;
        if (from >= 0) {
            printf("  reordering %s: PR_2 %.3f -> %.3f, b/n %.4f -> %.4f; swept at its first %d dims\n",
                   inputs[from].name, inputs[from].f.paddingRatio[1], inputs[i].f.paddingRatio[1],
                   inputs[from].f.meanBandwidth / inputs[from].f.rows, inputs[i].f.meanBandwidth / inputs[i].f.rows,
                   inputs[i].sweepDims);
        }
    }
    printGapTable(o);

    // The decider's answers and the random draws are fixed by the model, the
    // features and the seed, so they print here, before the GPU runs.
    Config* predicted = (Config*)checkedMalloc((size_t)inputCount * o->dimCount * sizeof(Config));
    Config* drawn = (Config*)checkedMalloc((size_t)inputCount * o->dimCount * sizeof(Config));
    printf("\nThe decider (model %s; trained on: %s) and the random configuration (seed %llu)\n", model->path,
           model->provenance[0][0] ? model->provenance[0] : "unknown", (unsigned long long)kSeedRandomConfig);
    printf("  %-18s %4s  %-13s %s\n", "input", "dim", "predicted", "random");
    uint64_t state = kSeedRandomConfig;
    for (int ii = 0; ii < inputCount; ++ii) {
        if (inputs[ii].reorderedFrom >= 0) continue;
        double x[kFeatureCount];
        featureVector(&inputs[ii].f, x);
        for (int di = 0; di < o->dimCount; ++di) {
            const int k = ii * o->dimCount + di;
            predicted[k] = predict(treeFor(model, o->dims[di]), x);
            drawn[k] = randomConfig(&state, o->dims[di], o);
            char p[32], q[32];
            configName(predicted[k], p, sizeof(p));
            configName(drawn[k], q, sizeof(q));
            printf("  %-18s %4d  %-13s %s\n", inputs[ii].name, o->dims[di], p, q);
        }
    }
    // The GCN runs on the community graph (the first input when files are given).
    int gcnInput = 0;
    for (int ii = 0; ii < inputCount; ++ii) gcnInput = strcmp(inputs[ii].name, "community") == 0 ? ii : gcnInput;
    const GcnSizes sizes = {o->small ? kGcnInSmall : kGcnIn, o->small ? kGcnHiddenSmall : kGcnHidden, kGcnClasses};
    Config gcnChosen[2];
    {
        double x[kFeatureCount];
        featureVector(&inputs[gcnInput].f, x);
        gcnChosen[0] = predict(treeFor(model, sizes.hidden), x);
        gcnChosen[1] = predict(treeFor(model, sizes.classes), x);
    }
    printf("\nEveryone's default configuration: W%d F%d V%d S%d (one warp per row, one 32-column strip per warp)\n",
           kDefaultW, kDefaultF, kDefaultV, kDefaultS);
    printf("Each configuration, the basic kernel and cuSPARSE: C poisoned with NaN, one run checked against the CPU,\n");
    printf("%d warm-up runs, mean of %d timed runs, then sum |C| checked again.\n", kWarmupRuns, kTimedRuns);
    fflush(stdout);

    if (!deviceFound()) {
        free(predicted);
        free(drawn);
        return 2;
    }

    // ---------------------------------------------------------- GPU part
    cudaDeviceProp prop;
    printDevice(&prop);
    cusparseHandle_t handle;
    CUSPARSE_CHECK(cusparseCreate(&handle));
    int failures = 0;
    DimResult* results = (DimResult*)checkedMalloc((size_t)inputCount * o->dimCount * sizeof(DimResult));
    for (int ii = 0; ii < inputCount; ++ii) {
        failures += sweepInput(&inputs[ii], o, handle, -1, &results[ii * o->dimCount]);
    }
    CUSPARSE_CHECK(cusparseDestroy(handle));
    printSweepSummaries(o, inputs, inputCount, results);
    printDeciderTable(o, inputs, inputCount, results, predicted, drawn);
    int reordered = 0;
    for (int ii = 0; ii < inputCount; ++ii) reordered += inputs[ii].reorderedFrom >= 0;
    if (reordered > 0) printReorderTable(o, inputs, inputCount, results);
    double gcnSpeedup = 0.0;
    failures += runGcn(&inputs[gcnInput], &sizes, gcnChosen, &gcnSpeedup);
    printf("~ goal: GCN forward pass with the decider's aggregation > 1.3x cuSPARSE's: {%s}\n",
           gcnSpeedup > 1.3 ? "met" : "missed");
    printf("headline: gcn_speedup = %.2f\n", gcnSpeedup);

    free(results);
    free(predicted);
    free(drawn);
    if (failures > 0) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        printf("FAIL\n");
        return EXIT_FAILURE;
    }
    printf("PASS\n");
    return EXIT_SUCCESS;
}

// The model the run uses: --model PATH, decider-model.txt, or, for --small
// without --model, the built-in one. Then every dim the run needs must have
// a tree: the run's dims and the GCN's two widths.
static int loadRunModel(const Options* o, Model* model) {
    if (o->small && o->modelPath == kDefaultModelPath) {
        memset(model, 0, sizeof(*model));
        snprintf(model->path, sizeof(model->path), "built-in small model");
        FILE* text = fmemopen((void*)kSmallModelText, strlen(kSmallModelText), "r");
        if (text == NULL) {
            fprintf(stderr, "built-in small model: cannot open: %s\n", strerror(errno));
            return 0;
        }
        const int ok = parseModel(text, model->path, model);
        fclose(text);
        if (!ok) return 0;
    } else if (!loadModel(o->modelPath, model)) {
        return 0;
    }
    const int gcnDims[2] = {o->small ? kGcnHiddenSmall : kGcnHidden, kGcnClasses};
    return modelCovers(model, o->dims, o->dimCount, "one of this run's dims") &&
           modelCovers(model, gcnDims, 2, "a width of the GCN's aggregations");
}

int main(int argc, char** argv) {
    Options o;
    if (!parseFlags(argc, argv, &o)) {
        free(o.paths);
        return EXIT_FAILURE;
    }
    if (o.train) {
        const int status = trainMain(&o);
        free(o.paths);
        return status;
    }
    // Files first (a bad one is refused at once), then the model, then the
    // generators, which take seconds.
    const int inputCap = o.pathCount > 0 ? o.pathCount : 9;
    Input* inputs = (Input*)checkedMalloc((size_t)inputCap * sizeof(Input));
    memset(inputs, 0, (size_t)inputCap * sizeof(Input));
    int inputCount = 0;
    Model* model = (Model*)checkedMalloc(sizeof(Model));
    if (!loadInputFiles(&o, inputs, &inputCount) || !loadRunModel(&o, model)) {
        freeInputs(inputs, inputCount);
        free(model);
        free(o.paths);
        return EXIT_FAILURE;
    }
    if (o.pathCount == 0) {
        generateInputs(&o, inputs, &inputCount);
    } else {
        for (int i = 0; i < inputCount; ++i) inputs[i].sweepDims = o.dimCount;
    }
    const int status = evaluateMain(&o, model, inputs, inputCount);
    freeInputs(inputs, inputCount);
    free(model);
    free(o.paths);
    return status;
}
