import CBLAS

/// Single-precision matrix products on OpenBLAS (Debian's libopenblas), row-major.
///
/// Each product runs on the calling thread alone: the worker already runs one job per core, and
/// OpenBLAS's own threads would only compete with them (and with the other jobs' products).
public enum MatrixProduct {
    /// `c[rows × columns] = a[rows × inner] · b[columns × inner]ᵀ`, plus what `c` held when
    /// `accumulate` is true. `b` is read as stored (one row per output column), as the weights
    /// of a linear layer are kept.
    public static func multiply(
        _ a: UnsafePointer<Float>, byTransposed b: UnsafePointer<Float>, into c: UnsafeMutablePointer<Float>,
        rows: Int, columns: Int, inner: Int, accumulate: Bool = false
    ) {
        guard rows > 0, columns > 0 else { return }
        _ = singleThreaded
        cblas_sgemm(
            CblasRowMajor, CblasNoTrans, CblasTrans, blasint(rows), blasint(columns), blasint(inner),
            1, a, blasint(inner), b, blasint(inner), accumulate ? 1 : 0, c, blasint(columns))
    }

    /// `c[rows × columns] = a[rows × inner] · b[inner × columns]`, where a row of `c` starts
    /// `cStride` elements after the one before (`columns` when nil): a block of columns of a
    /// wider matrix.
    public static func multiply(
        _ a: UnsafePointer<Float>, by b: UnsafePointer<Float>, into c: UnsafeMutablePointer<Float>,
        rows: Int, columns: Int, inner: Int, cStride: Int? = nil
    ) {
        guard rows > 0, columns > 0 else { return }
        _ = singleThreaded
        cblas_sgemm(
            CblasRowMajor, CblasNoTrans, CblasNoTrans, blasint(rows), blasint(columns), blasint(inner),
            1, a, blasint(inner), b, blasint(columns), 0, c, blasint(cStride ?? columns))
    }

    /// Set once per process, before the first product.
    private static let singleThreaded: Void = openblas_set_num_threads(1)
}
