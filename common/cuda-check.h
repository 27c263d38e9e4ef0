// Canonical error macros of the course. Lessons do not include this file:
// each lesson carries a byte-identical copy of the macros it uses, because a
// lesson must build alone. `make check` compares every copy with this text.
//
// The do { } while (0) makes each macro one statement, so it is safe after a
// braceless if. The local's trailing underscore keeps it from shadowing a
// name at the call site. A failed CUDA call is a failed run: exit status 1.

#define CUDA_CHECK(call)                                                         \
    do {                                                                         \
        cudaError_t status_ = (call);                                            \
        if (status_ != cudaSuccess) {                                            \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                    cudaGetErrorString(status_));                                \
            exit(EXIT_FAILURE);                                                  \
        }                                                                        \
    } while (0)

// cuSPARSE returns its own status type, so it needs its own check.
#define CUSPARSE_CHECK(call)                                                     \
    do {                                                                         \
        cusparseStatus_t status_ = (call);                                       \
        if (status_ != CUSPARSE_STATUS_SUCCESS) {                                \
            fprintf(stderr, "%s:%d: %s failed: %s\n", __FILE__, __LINE__, #call, \
                    cusparseGetErrorString(status_));                            \
            exit(EXIT_FAILURE);                                                  \
        }                                                                        \
    } while (0)

// cuBLAS has no error-string function before 12.0; the number is enough to
// look it up in cublas_api.h.
#define CUBLAS_CHECK(call)                                                                     \
    do {                                                                                       \
        cublasStatus_t status_ = (call);                                                       \
        if (status_ != CUBLAS_STATUS_SUCCESS) {                                                \
            fprintf(stderr, "%s:%d: %s failed: cuBLAS status %d\n", __FILE__, __LINE__, #call, \
                    (int)status_);                                                             \
            exit(EXIT_FAILURE);                                                                \
        }                                                                                      \
    } while (0)
