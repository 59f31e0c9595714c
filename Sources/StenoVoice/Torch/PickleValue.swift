/// A value of Python's pickle format, as far as a PyTorch checkpoint uses it. Lists and dicts
/// are boxes: pickle fills them after it has put them in its memo, and a later `get` must see
/// what was filled in.
indirect enum PickleValue {
    case none
    case bool(Bool)
    case int(Int)
    case float(Double)
    case string(String)
    case bytes([UInt8])
    case tuple([PickleValue])
    case list(PickleList)
    case dict(PickleDict)
    /// A `module.name` reference (`GLOBAL`): a class or a function.
    case global(module: String, name: String)
    /// What `persistent_load` receives: in a torch file, a storage's description.
    case persistent(PickleValue)
    /// A tensor: a view of one of the file's storages.
    case tensor(TorchTensorReference)
    /// A call pickle describes but this reader does not carry out (optimiser state, hooks).
    case object(callable: String, arguments: [PickleValue])

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    var int: Int? {
        switch self {
        case .int(let value): value
        case .bool(let value): value ? 1 : 0
        default: nil
        }
    }

    var tuple: [PickleValue]? {
        switch self {
        case .tuple(let items): items
        case .list(let list): list.items
        default: nil
        }
    }

    /// The value under the string key `key`, for a dict.
    subscript(key: String) -> PickleValue? {
        guard case .dict(let dict) = self else { return nil }
        return dict.entries.first { $0.key.string == key }?.value
    }
}

final class PickleList {
    var items: [PickleValue] = []
}

final class PickleDict {
    var entries: [(key: PickleValue, value: PickleValue)] = []
}

/// A tensor as a torch file stores it: which storage, where in it, its shape and strides.
struct TorchTensorReference {
    var storageKey: String
    var elementType: TorchElementType
    var offset: Int
    var shape: [Int]
    var strides: [Int]
}

/// The storage types a legacy torch file names, by their element size.
enum TorchElementType: String {
    case float = "FloatStorage"
    case double = "DoubleStorage"
    case half = "HalfStorage"
    case long = "LongStorage"
    case int = "IntStorage"
    case short = "ShortStorage"
    case char = "CharStorage"
    case byte = "ByteStorage"
    case bool = "BoolStorage"

    var size: Int {
        switch self {
        case .double, .long: 8
        case .float, .int: 4
        case .half, .short: 2
        case .char, .byte, .bool: 1
        }
    }
}
