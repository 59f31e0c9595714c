/// Arithmetic on voice embeddings: CAM++'s 192 values, compared by cosine similarity.
public enum VoiceEmbedding {
    /// The embedding's length: CAM++'s 192 values.
    public static let dimensions = 192

    public static func dot(_ a: [Float], _ b: [Float]) -> Float {
        var sum: Float = 0
        for index in 0..<min(a.count, b.count) { sum += a[index] * b[index] }
        return sum
    }

    public static func sum(_ vectors: [[Float]]) -> [Float] {
        guard let first = vectors.first else { return [] }
        var total = [Float](repeating: 0, count: first.count)
        for vector in vectors {
            for index in 0..<min(total.count, vector.count) { total[index] += vector[index] }
        }
        return total
    }

    public static func normalized(_ vector: [Float]) -> [Float] {
        let norm = dot(vector, vector).squareRoot()
        return norm > 0 ? vector.map { $0 / norm } : vector
    }

    /// 1 - cosine similarity of two unit vectors.
    public static func distance(_ a: [Float], _ b: [Float]) -> Float { 1 - dot(a, b) }
}
