/// The float tensors of a PyTorch checkpoint in the legacy (pre-1.6, non-zip) format, as
/// `torch.save` wrote it: five pickles in a row (a magic number, the protocol version, system
/// information, the object, the sorted storage keys), then each storage as an 8-byte element
/// count and its raw little-endian elements. No Python and no torch: the object pickle is read
/// as data, and tensors are views into the storages by offset, shape and strides.
struct TorchCheckpoint {
    /// The saved object (for a training checkpoint, a dict of `model_state` and the rest).
    let object: PickleValue
    private let storages: [String: [UInt8]]

    /// 0x1950a86a20f9469cfc6c, as pickle's LONG1 stores it: little-endian.
    static let magic: [UInt8] = [0x6C, 0xFC, 0x9C, 0x46, 0xF9, 0x20, 0x6A, 0xA8, 0x50, 0x19]

    init(bytes: [UInt8]) throws(VoiceModelError) {
        var reader = PickleReader(bytes: bytes)
        guard case .bytes(let magic) = try? reader.read(), magic == Self.magic else {
            throw VoiceModelError(.malformedModel, "not a PyTorch checkpoint in the legacy format (no magic number)")
        }
        guard case .int(1001) = try reader.read() else {
            throw VoiceModelError(.malformedModel, "a PyTorch checkpoint of a protocol version other than 1001")
        }
        _ = try reader.read()
        object = try reader.read()
        guard let keys = try reader.read().tuple?.compactMap(\.string) else {
            throw VoiceModelError(.malformedModel, "a PyTorch checkpoint without its list of storages")
        }
        var position = reader.position
        var storages: [String: [UInt8]] = [:]
        var sizes = Self.elementSizes(of: object)
        for key in keys {
            var header = PickleReader(bytes: bytes, position: position)
            let count = Int(try header.littleEndian(8))
            let size = sizes.removeValue(forKey: key) ?? 4
            let start = header.position
            guard count >= 0, start + count * size <= bytes.count else {
                throw VoiceModelError(.malformedModel, "storage \(key) runs past the end of the file")
            }
            storages[key] = Array(bytes[start..<start + count * size])
            position = start + count * size
        }
        self.storages = storages
    }

    /// The float tensor `name` of the state dict under `dictionary`, checked against `shape`,
    /// in row-major order.
    func floats(_ name: String, in dictionary: String, shape: [Int]) throws(VoiceModelError) -> [Float] {
        guard case .tensor(let tensor) = object[dictionary]?[name] else {
            throw VoiceModelError(.unexpectedModel, "the checkpoint has no tensor \(dictionary).\(name)")
        }
        guard tensor.shape == shape else {
            throw VoiceModelError(.unexpectedModel, "\(dictionary).\(name) has shape \(tensor.shape), expected \(shape)")
        }
        guard tensor.elementType == .float else {
            throw VoiceModelError(.unexpectedModel, "\(dictionary).\(name) holds \(tensor.elementType.rawValue), expected floats")
        }
        guard let storage = storages[tensor.storageKey] else {
            throw VoiceModelError(.malformedModel, "\(dictionary).\(name) reads storage \(tensor.storageKey), which the file lacks")
        }
        let count = shape.reduce(1, *)
        var contiguous = 1
        var expectedStrides = [Int](repeating: 0, count: shape.count)
        for axis in shape.indices.reversed() {
            expectedStrides[axis] = contiguous
            contiguous *= shape[axis]
        }
        guard tensor.strides == expectedStrides || count <= 1 else {
            throw VoiceModelError(.unexpectedModel, "\(dictionary).\(name) is not stored contiguously")
        }
        guard (tensor.offset + count) * 4 <= storage.count else {
            throw VoiceModelError(.malformedModel, "\(dictionary).\(name) runs past the end of its storage")
        }
        return storage.withUnsafeBytes { raw in
            (0..<count).map { Float(bitPattern: raw.loadUnaligned(fromByteOffset: (tensor.offset + $0) * 4, as: UInt32.self).littleEndian) }
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
