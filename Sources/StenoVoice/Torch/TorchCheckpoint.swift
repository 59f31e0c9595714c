/// The tensors of a PyTorch checkpoint, in either format `torch.save` writes:
/// - the zip format (PyTorch 1.6 and later): `NAME/data.pkl`, the object, and each storage raw
///   in its own stored entry `NAME/data/KEY`;
/// - the legacy format: five pickles in a row (a magic number, the protocol version, system
///   information, the object, the sorted storage keys), then each storage as an 8-byte element
///   count and its raw little-endian elements.
///
/// No Python and no torch: the object pickle is read as data, and tensors are views into the
/// storages by offset, shape and strides. Every size and offset read from the file is checked
/// with arithmetic that cannot overflow: a damaged or hostile file fails with a reason.
struct TorchCheckpoint {
    /// The saved object (a state dict, or a training checkpoint holding one).
    let object: PickleValue
    private let bytes: [UInt8]
    /// Each storage's bytes in `bytes`.
    private let storages: [String: Range<Int>]

    /// 0x1950a86a20f9469cfc6c, as pickle's LONG1 stores it: little-endian.
    static let magic: [UInt8] = [0x6C, 0xFC, 0x9C, 0x46, 0xF9, 0x20, 0x6A, 0xA8, 0x50, 0x19]

    init(bytes: [UInt8]) throws(VoiceModelError) {
        self.bytes = bytes
        if ZipArchive.isZip(bytes) {
            (object, storages) = try Self.readZip(bytes)
        } else {
            (object, storages) = try Self.readLegacy(bytes)
        }
    }

    private static func readZip(_ bytes: [UInt8]) throws(VoiceModelError) -> (PickleValue, [String: Range<Int>]) {
        let archive = try ZipArchive(bytes: bytes)
        guard let data = archive.entries.values.first(where: { $0.name.hasSuffix("/data.pkl") || $0.name == "data.pkl" }) else {
            throw VoiceModelError(.malformedModel, "a zip file without data.pkl: not a PyTorch checkpoint")
        }
        let prefix = String(data.name.dropLast("data.pkl".count))
        var reader = PickleReader(bytes: Array(bytes[data.range]))
        let object = try reader.read()
        var storages: [String: Range<Int>] = [:]
        for entry in archive.entries.values where entry.name.hasPrefix(prefix + "data/") {
            storages[String(entry.name.dropFirst(prefix.count + 5))] = entry.range
        }
        return (object, storages)
    }

    private static func readLegacy(_ bytes: [UInt8]) throws(VoiceModelError) -> (PickleValue, [String: Range<Int>]) {
        var reader = PickleReader(bytes: bytes)
        guard case .bytes(let magic) = try? reader.read(), magic == Self.magic else {
            throw VoiceModelError(.malformedModel, "not a PyTorch checkpoint (neither a zip file nor the legacy format's magic number)")
        }
        guard case .int(1001) = try reader.read() else {
            throw VoiceModelError(.malformedModel, "a PyTorch checkpoint of a protocol version other than 1001")
        }
        _ = try reader.read()
        let object = try reader.read()
        guard let keys = try reader.read().tuple?.compactMap(\.string) else {
            throw VoiceModelError(.malformedModel, "a PyTorch checkpoint without its list of storages")
        }
        var position = reader.position
        var storages: [String: Range<Int>] = [:]
        var sizes = Self.elementSizes(of: object)
        for key in keys {
            let count = try ZipArchive.integer(bytes, at: position, size: 8)
            let size = sizes.removeValue(forKey: key) ?? 4
            let start = position + 8
            let (length, lengthOverflow) = count.multipliedReportingOverflow(by: size)
            let (end, endOverflow) = start.addingReportingOverflow(length)
            guard !lengthOverflow, !endOverflow, end <= bytes.count else {
                throw VoiceModelError(.malformedModel, "storage \(key) runs past the end of the file")
            }
            storages[key] = start..<end
            position = end
        }
        return (object, storages)
    }

    /// The state dict: `object[dictionary]` when `dictionary` is given (a training checkpoint),
    /// else the object itself.
    private func stateDict(_ dictionary: String?) -> PickleValue? {
        guard let dictionary else { return object }
        return object[dictionary]
    }

    /// Whether the state dict holds a tensor named `name`.
    func contains(_ name: String, in dictionary: String? = nil) -> Bool {
        if case .tensor = stateDict(dictionary)?[name] { return true }
        return false
    }

    /// The float tensor `name` of the state dict (under `dictionary` when given), checked
    /// against `shape`, in row-major order.
    func floats(_ name: String, in dictionary: String? = nil, shape: [Int]) throws(VoiceModelError) -> [Float] {
        let qualified = dictionary.map { "\($0).\(name)" } ?? name
        guard case .tensor(let tensor) = stateDict(dictionary)?[name] else {
            throw VoiceModelError(.unexpectedModel, "the checkpoint has no tensor \(qualified)")
        }
        guard tensor.shape == shape else {
            throw VoiceModelError(.unexpectedModel, "\(qualified) has shape \(tensor.shape), expected \(shape)")
        }
        guard tensor.elementType == .float else {
            throw VoiceModelError(.unexpectedModel, "\(qualified) holds \(tensor.elementType.rawValue), expected floats")
        }
        guard let storage = storages[tensor.storageKey] else {
            throw VoiceModelError(.malformedModel, "\(qualified) reads storage \(tensor.storageKey), which the file lacks")
        }
        // `shape` is the caller's, so its product is small; the offset is the file's.
        let count = shape.reduce(1, *)
        var contiguous = 1
        var expectedStrides = [Int](repeating: 0, count: shape.count)
        for axis in shape.indices.reversed() {
            expectedStrides[axis] = contiguous
            contiguous *= shape[axis]
        }
        guard tensor.strides == expectedStrides || count <= 1 else {
            throw VoiceModelError(.unexpectedModel, "\(qualified) is not stored contiguously")
        }
        let (end, endOverflow) = tensor.offset.addingReportingOverflow(count)
        let (byteEnd, byteOverflow) = end.multipliedReportingOverflow(by: 4)
        guard tensor.offset >= 0, !endOverflow, !byteOverflow, byteEnd <= storage.count else {
            throw VoiceModelError(.malformedModel, "\(qualified) runs past the end of its storage")
        }
        let base = storage.lowerBound + tensor.offset * 4
        return bytes.withUnsafeBytes { raw in
            (0..<count).map { Float(bitPattern: raw.loadUnaligned(fromByteOffset: base + $0 * 4, as: UInt32.self).littleEndian) }
        }
    }

    /// Each storage's element size, from the first tensor that views it.
    private static func elementSizes(of value: PickleValue) -> [String: Int] {
        var sizes: [String: Int] = [:]
        func visit(_ value: PickleValue) {
            switch value {
            case .tensor(let tensor): sizes[tensor.storageKey] = sizes[tensor.storageKey] ?? tensor.elementType.size
            case .tuple(let items): items.forEach(visit)
            case .list(let list): list.items.forEach(visit)
            case .dict(let dict): dict.entries.forEach { visit($0.value) }
            case .object(_, let arguments): arguments.forEach(visit)
            default: break
            }
        }
        visit(value)
        return sizes
    }
}
