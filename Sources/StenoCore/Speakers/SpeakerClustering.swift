import Foundation

/// Groups voice embeddings into speakers: agglomerative clustering by cosine distance with
/// average linkage (the mean distance between the members of two groups), cut where the next
/// merge would join groups further apart than `threshold`, or at the number of speakers asked for.
///
/// The dendrogram is built with the nearest-neighbour chain (O(n²) time and memory, exact for
/// average linkage); past `blockLimit` pieces, time-ordered blocks are first clustered at the
/// same threshold and their groups then clustered by their centroids, so that memory stays
/// bounded whatever the chapter's length.
public struct SpeakerClustering: Sendable {
    /// Cosine distance at which two groups are taken for different voices
    /// (`SpeakerSettings.clusteringThreshold`, calibrated in docs/speakers.md).
    public var threshold: Float
    public var blockLimit: Int

    public init(threshold: Float = SpeakerSettings.calibrated.clusteringThreshold, blockLimit: Int = 2_000) {
        self.threshold = threshold
        self.blockLimit = blockLimit
    }

    /// A label per embedding, 0..<k, numbered in order of first appearance. `count` fixes the
    /// number of groups (or bounds it), where there are enough embeddings. `weights` (seconds
    /// of speech each embedding stands for) weigh the centroids of the refinement.
    public func labels(of embeddings: [[Float]], count: SpeakerCount = .automatic, weights: [Double]? = nil) -> [Int] {
        guard !embeddings.isEmpty else { return [] }
        let unit = embeddings.map(VoiceEmbedding.normalized)
        let labels = unclustered(unit, count: count)
        let weights = weights?.count == unit.count ? weights! : [Double](repeating: 1, count: unit.count)
        return Self.renumbered(Self.refined(labels, unit: unit, weights: weights))
    }

    /// A few rounds of moving each embedding to the group whose centroid is closest (k-means
    /// on the sphere, started from the dendrogram's cut): agglomeration cannot undo an early
    /// merge of two alike voices, and this can. Groups keep their number; none is made.
    static func refined(_ labels: [Int], unit: [[Float]], weights: [Double], rounds: Int = 10) -> [Int] {
        var labels = labels
        for _ in 0..<rounds {
            let groups = Set(labels).sorted()
            guard groups.count > 1 else { return labels }
            let centroids = groups.map { group in
                VoiceEmbedding.normalized(VoiceEmbedding.sum(labels.indices.filter { labels[$0] == group }.map { index in unit[index].map { $0 * Float(weights[index]) } }))
            }
            let moved = unit.map { vector in groups[centroids.indices.max { VoiceEmbedding.dot(centroids[$0], vector) < VoiceEmbedding.dot(centroids[$1], vector) }!] }
            if moved == labels { break }
            labels = moved
        }
        return labels
    }

    private func unclustered(_ unit: [[Float]], count: SpeakerCount) -> [Int] {
        if unit.count <= blockLimit {
            return cluster(unit, sizes: [Int](repeating: 1, count: unit.count), count: count)
        }
        // Blocks of neighbouring pieces first, at the threshold; then their groups by centroid.
        var blockLabels = [Int](repeating: 0, count: unit.count)
        var centroids: [[Float]] = []
        var sizes: [Int] = []
        for start in stride(from: 0, to: unit.count, by: blockLimit) {
            let block = Array(unit[start..<min(unit.count, start + blockLimit)])
            let labels = cluster(block, sizes: [Int](repeating: 1, count: block.count), count: .automatic)
            let groups = (labels.max() ?? -1) + 1
            for group in 0..<groups {
                let members = labels.indices.filter { labels[$0] == group }
                centroids.append(VoiceEmbedding.normalized(VoiceEmbedding.sum(members.map { block[$0] })))
                sizes.append(members.count)
                for member in members { blockLabels[start + member] = centroids.count - 1 }
            }
        }
        let merged = cluster(centroids, sizes: sizes, count: count)
        return blockLabels.map { merged[$0] }
    }

    /// The distance given to two points kept apart (`apart`): past any threshold, and enough
    /// that a group holding both stays far from the rest under average linkage.
    static let apartDistance: Float = 4

    /// Average-linkage clustering of `points` (unit vectors) that stand for `sizes` pieces each.
    /// Points with the same non-nil `apart` key are taken for different voices (the groups of one
    /// chapter, which its own clustering already told apart).
    func cluster(_ points: [[Float]], sizes: [Int], count: SpeakerCount, apart: [Int?]? = nil) -> [Int] {
        let n = points.count
        guard n > 1 else { return [Int](repeating: 0, count: n) }
        var distance = [Float](repeating: 0, count: n * n)
        for i in 0..<n {
            for j in (i + 1)..<n {
                let separated = apart.map { $0[i] != nil && $0[i] == $0[j] } ?? false
                let d = separated ? Self.apartDistance : 1 - VoiceEmbedding.dot(points[i], points[j])
                distance[i * n + j] = d
                distance[j * n + i] = d
            }
        }
        var size = sizes
        var active = [Bool](repeating: true, count: n)
        var merges: [(a: Int, b: Int, distance: Float)] = []
        var chain: [Int] = []
        // The nearest-neighbour chain: follow nearest neighbours until two are each other's.
        while merges.count < n - 1 {
            if chain.isEmpty { chain.append(active.firstIndex(of: true)!) }
            let current = chain[chain.count - 1]
            let previous = chain.count > 1 ? chain[chain.count - 2] : -1
            var nearest = -1
            var nearestDistance = Float.infinity
            for other in 0..<n where active[other] && other != current {
                let d = distance[current * n + other]
                // Ties go to the previous link, so that the chain always ends.
                if d < nearestDistance || (d == nearestDistance && other == previous) {
                    nearest = other
                    nearestDistance = d
                }
            }
            if nearest == previous {
                chain.removeLast(2)
                let (a, b) = (min(current, nearest), max(current, nearest))
                merges.append((a, b, nearestDistance))
                // Lance-Williams for average linkage; the group lives on in `a`.
                for other in 0..<n where active[other] && other != a && other != b {
                    let d = (Float(size[a]) * distance[a * n + other] + Float(size[b]) * distance[b * n + other]) / Float(size[a] + size[b])
                    distance[a * n + other] = d
                    distance[other * n + a] = d
                }
                size[a] += size[b]
                active[b] = false
            } else {
                chain.append(nearest)
            }
        }
        // Merges in order of distance give the dendrogram; keep all but the last k - 1.
        merges.sort { $0.distance < $1.distance }
        let natural = n - merges.prefix { $0.distance <= threshold }.count
        let groups = count.clamp(natural, pieces: n)
        var parent = Array(0..<n)
        func root(_ x: Int) -> Int {
            var x = x
            while parent[x] != x {
                parent[x] = parent[parent[x]]
                x = parent[x]
            }
            return x
        }
        for merge in merges.prefix(n - groups) {
            parent[root(merge.b)] = root(merge.a)
        }
        return (0..<n).map(root)
    }

    /// Labels renumbered 0..<k by first appearance.
    static func renumbered(_ labels: [Int]) -> [Int] {
        var numbers: [Int: Int] = [:]
        return labels.map { label in
            if let number = numbers[label] { return number }
            numbers[label] = numbers.count
            return numbers.count - 1
        }
    }
}

/// How many speakers a media has: found by itself, exactly N, or within bounds.
public struct SpeakerCount: Sendable, Equatable, Codable {
    public var minimum: Int?
    public var maximum: Int?

    public init(minimum: Int? = nil, maximum: Int? = nil) {
        self.minimum = minimum
        self.maximum = maximum
    }

    public static let automatic = SpeakerCount()
    public static func exactly(_ count: Int) -> SpeakerCount { SpeakerCount(minimum: count, maximum: count) }

    /// `natural` groups brought within the bounds, never more than there are pieces.
    func clamp(_ natural: Int, pieces: Int) -> Int {
        var groups = natural
        if let minimum { groups = max(groups, minimum) }
        if let maximum { groups = min(groups, maximum) }
        return min(max(groups, 1), pieces)
    }

    /// Reads `--speakers`: `N`, `MIN-MAX`, `MIN-` or `-MAX`; `auto` for none.
    public init(parsing text: String) throws(SpeakerCountError) {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed == "auto" {
            self = .automatic
            return
        }
        func number(_ part: Substring) throws(SpeakerCountError) -> Int? {
            if part.isEmpty { return nil }
            guard let value = Int(part), (1...64).contains(value) else { throw SpeakerCountError(text: text) }
            return value
        }
        if let dash = trimmed.firstIndex(of: "-") {
            let minimum = try number(trimmed[..<dash])
            let maximum = try number(trimmed[trimmed.index(after: dash)...])
            if minimum == nil && maximum == nil { throw SpeakerCountError(text: text) }
            if let minimum, let maximum, minimum > maximum { throw SpeakerCountError(text: text) }
            self.init(minimum: minimum, maximum: maximum)
        } else {
            guard let exact = try number(Substring(trimmed)) else { throw SpeakerCountError(text: text) }
            self = .exactly(exact)
        }
    }

    /// How `--speakers` spells it back.
    public var text: String {
        switch (minimum, maximum) {
        case (nil, nil): "auto"
        case let (minimum?, maximum?) where minimum == maximum: "\(minimum)"
        case let (minimum, maximum): "\(minimum.map(String.init) ?? "")-\(maximum.map(String.init) ?? "")"
        }
    }
}

public struct SpeakerCountError: Error, Sendable, Equatable, CustomStringConvertible {
    public var text: String
    public var description: String {
        "speakers must be auto, a number from 1 to 64, or a range such as 2-4, 2- or -6 (got \(text))"
    }
}
