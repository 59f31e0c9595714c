/// The named float tensors stored in an ONNX model (its graph's initializers): the weights.
///
/// Only what a fixed, known network needs is read: ModelProto.graph (field 7),
/// GraphProto.initializer (field 5), and of each TensorProto its dims (1), data type (2),
/// float_data (4), name (8) and raw_data (9). Integer initializers (shapes, axes) are skipped;
/// the forward pass that uses the weights knows its own shapes and checks the dims it reads.
struct ONNXInitializers {
    struct Tensor {
        var dims: [Int]
        var values: [Float]
    }

    private(set) var tensors: [String: Tensor] = [:]

    private static let floatType: UInt64 = 1

    init(modelBytes bytes: [UInt8]) throws(VoiceModelError) {
        var model = ProtobufReader(bytes)
        var graph: Range<Int>?
        while !model.isAtEnd {
            let field = try model.nextField()
            if field.number == 7, case .bytes(let range) = field.value { graph = range }
        }
        guard let graph else { throw VoiceModelError(.malformedModel, "the file holds no ONNX graph") }
        var reader = ProtobufReader(bytes, range: graph)
        while !reader.isAtEnd {
            let field = try reader.nextField()
            guard field.number == 5, case .bytes(let range) = field.value else { continue }
            if let (name, tensor) = try Self.floatTensor(bytes, range) { tensors[name] = tensor }
        }
    }

    /// The tensor `name` with exactly `dims`.
    func tensor(_ name: String, dims: [Int]) throws(VoiceModelError) -> [Float] {
        guard let tensor = tensors[name] else {
            throw VoiceModelError(.unexpectedModel, "the model has no float tensor \(name)")
        }
        guard tensor.dims == dims, tensor.values.count == dims.reduce(1, *) else {
            throw VoiceModelError(.unexpectedModel, "tensor \(name) has shape \(tensor.dims) and \(tensor.values.count) values; expected \(dims)")
        }
        return tensor.values
    }

    private static func floatTensor(_ bytes: [UInt8], _ range: Range<Int>) throws(VoiceModelError) -> (String, Tensor)? {
        var reader = ProtobufReader(bytes, range: range)
        var dims: [Int] = []
        var type: UInt64 = 0
        var name = ""
        var raw: Range<Int>?
        var packedFloats: [Range<Int>] = []
        while !reader.isAtEnd {
            let field = try reader.nextField()
            switch (field.number, field.value) {
            case (1, .varint(let dim)):
                dims.append(Int(truncatingIfNeeded: dim))
            case (1, .bytes(let packed)):
                var dimensions = ProtobufReader(bytes, range: packed)
                while !dimensions.isAtEnd { dims.append(Int(truncatingIfNeeded: try dimensions.varint())) }
            case (2, .varint(let value)):
                type = value
            case (4, .bytes(let packed)):
                packedFloats.append(packed)
            case (8, .bytes(let text)):
                name = String(decoding: bytes[text], as: UTF8.self)
            case (9, .bytes(let data)):
                raw = data
            default:
                continue
            }
        }
        guard type == floatType else { return nil }
        var values: [Float] = []
        for block in (raw.map { [$0] } ?? packedFloats) {
            guard block.count % 4 == 0 else {
                throw VoiceModelError(.malformedModel, "tensor \(name) holds \(block.count) bytes, not whole 32-bit floats")
            }
            values.reserveCapacity(values.count + block.count / 4)
            // Little-endian IEEE 754, as ONNX stores them.
            for offset in stride(from: block.lowerBound, to: block.upperBound, by: 4) {
                let bits = UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16 | UInt32(bytes[offset + 3]) << 24
                values.append(Float(bitPattern: bits))
            }
        }
        return (name, Tensor(dims: dims, values: values))
    }
}
