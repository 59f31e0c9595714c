/// Reads one pickle (protocols 2 to 4) from a byte buffer, as PyTorch's legacy checkpoint format
/// writes several in a row. It builds values and never runs code: a `REDUCE` is carried out
/// only for the few callables a state dict uses (an `OrderedDict`, a tensor's rebuild), and
/// recorded as an `object` otherwise.
struct PickleReader {
    private let bytes: [UInt8]
    private(set) var position: Int

    init(bytes: [UInt8], position: Int = 0) {
        self.bytes = bytes
        self.position = position
    }

    private var stack: [PickleValue] = []
    private var marks: [Int] = []
    private var memo: [Int: PickleValue] = [:]

    /// Reads the next pickle and leaves `position` just past its `STOP`.
    mutating func read() throws(VoiceModelError) -> PickleValue {
        stack = []
        marks = []
        memo = [:]
        while true {
            let opcode = try byte()
            switch opcode {
            case 0x80: _ = try byte()  // PROTO
            case 0x95: position += 8  // FRAME (protocol 4): a length only
            case 0x2E:  // STOP
                return try pop()
            case 0x28: marks.append(stack.count)  // MARK
            case 0x4E: stack.append(.none)
            case 0x88: stack.append(.bool(true))
            case 0x89: stack.append(.bool(false))
            case 0x4A: stack.append(.int(Int(Int32(bitPattern: UInt32(try littleEndian(4))))))  // BININT
            case 0x4B: stack.append(.int(Int(try byte())))  // BININT1
            case 0x4D: stack.append(.int(try length(2)))  // BININT2
            case 0x8A:  // LONG1
                // Wider than 64 bits (a torch file's magic number): kept as its bytes.
                let count = Int(try byte())
                stack.append(count > 8 ? .bytes(try take(count)) : .int(try signedInteger(count)))
            case 0x47:  // BINFLOAT, big-endian
                var bits: UInt64 = 0
                for _ in 0..<8 { bits = bits << 8 | UInt64(try byte()) }
                stack.append(.float(Double(bitPattern: bits)))
            case 0x58: stack.append(.string(try text(try length(4))))  // BINUNICODE
            case 0x8C: stack.append(.string(try text(Int(try byte()))))  // SHORT_BINUNICODE
            case 0x8D: stack.append(.string(try text(try length(8))))  // BINUNICODE8
            case 0x55: stack.append(.string(try text(Int(try byte()))))  // SHORT_BINSTRING
            case 0x54: stack.append(.string(try text(try length(4))))  // BINSTRING
            case 0x43: stack.append(.bytes(try take(Int(try byte()))))  // SHORT_BINBYTES
            case 0x42: stack.append(.bytes(try take(try length(4))))  // BINBYTES
            case 0x29: stack.append(.tuple([]))  // EMPTY_TUPLE
            case 0x85: stack.append(.tuple(try popMany(1)))  // TUPLE1
            case 0x86: stack.append(.tuple(try popMany(2)))  // TUPLE2
            case 0x87: stack.append(.tuple(try popMany(3)))  // TUPLE3
            case 0x74: stack.append(.tuple(try popToMark()))  // TUPLE
            case 0x5D: stack.append(.list(PickleList()))  // EMPTY_LIST
            case 0x6C:  // LIST
                let list = PickleList()
                list.items = try popToMark()
                stack.append(.list(list))
            case 0x7D: stack.append(.dict(PickleDict()))  // EMPTY_DICT
            case 0x64:  // DICT
                let dict = PickleDict()
                dict.entries = try pairs(try popToMark())
                stack.append(.dict(dict))
            case 0x61:  // APPEND
                let item = try pop()
                try list(at: stack.count - 1).items.append(item)
            case 0x65:  // APPENDS
                let items = try popToMark()
                try list(at: stack.count - 1).items.append(contentsOf: items)
            case 0x73:  // SETITEM
                let value = try pop()
                let key = try pop()
                try dict(at: stack.count - 1).entries.append((key, value))
            case 0x75:  // SETITEMS
                let items = try pairs(try popToMark())
                try dict(at: stack.count - 1).entries.append(contentsOf: items)
            case 0x71: memo[Int(try byte())] = try top()  // BINPUT
            case 0x72: memo[try length(4)] = try top()  // LONG_BINPUT
            case 0x94: memo[memo.count] = try top()  // MEMOIZE
            case 0x68: stack.append(try memoized(Int(try byte())))  // BINGET
            case 0x6A: stack.append(try memoized(try length(4)))  // LONG_BINGET
            case 0x63:  // GLOBAL
                let module = try line()
                stack.append(.global(module: module, name: try line()))
            case 0x93:  // STACK_GLOBAL
                let name = try pop()
                let module = try pop()
                guard let module = module.string, let name = name.string else { throw malformed("a STACK_GLOBAL without names") }
                stack.append(.global(module: module, name: name))
            case 0x51: stack.append(.persistent(try pop()))  // BINPERSID
            case 0x52:  // REDUCE
                let arguments = try pop()
                let callable = try pop()
                stack.append(try reduce(callable, arguments.tuple ?? []))
            case 0x81:  // NEWOBJ
                let arguments = try pop()
                let cls = try pop()
                stack.append(try reduce(cls, arguments.tuple ?? []))
            case 0x62: _ = try pop()  // BUILD: the state of an object this reader does not rebuild
            default:
                throw malformed("pickle opcode 0x\(String(opcode, radix: 16)) at byte \(position - 1) is not one a torch checkpoint uses")
            }
        }
    }

    /// Carries out the calls a state dict needs; records any other.
    private func reduce(_ callable: PickleValue, _ arguments: [PickleValue]) throws(VoiceModelError) -> PickleValue {
        guard case .global(let module, let name) = callable else { throw malformed("a call of something that is not a global") }
        switch (module, name) {
        case ("collections", "OrderedDict"):
            return .dict(PickleDict())
        case ("torch._utils", "_rebuild_tensor_v2"), ("torch._utils", "_rebuild_tensor"):
            guard arguments.count >= 4, case .persistent(let described) = arguments[0], let storage = described.tuple,
                storage.count >= 3, storage[0].string == "storage", case .global(_, let typeName) = storage[1],
                let key = storage[2].string, let offset = arguments[1].int, let shape = arguments[2].tuple, let strides = arguments[3].tuple
            else { throw malformed("a tensor whose storage is not described as torch describes it") }
            guard let type = TorchElementType(rawValue: typeName) else { throw malformed("a tensor of \(typeName), which this reader does not know") }
            return .tensor(TorchTensorReference(
                storageKey: key, elementType: type, offset: offset,
                shape: shape.compactMap(\.int), strides: strides.compactMap(\.int)))
        default:
            return .object(callable: "\(module).\(name)", arguments: arguments)
        }
    }

    private mutating func byte() throws(VoiceModelError) -> UInt8 {
        guard position < bytes.count else { throw malformed("the file ends inside a pickle") }
        defer { position += 1 }
        return bytes[position]
    }

    private mutating func take(_ count: Int) throws(VoiceModelError) -> [UInt8] {
        guard count >= 0, count <= bytes.count - position else { throw malformed("the file ends inside a pickle") }
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    mutating func littleEndian(_ count: Int) throws(VoiceModelError) -> UInt64 {
        var value: UInt64 = 0
        for (shift, byte) in try take(count).enumerated() { value |= UInt64(byte) << (8 * shift) }
        return value
    }

    /// An unsigned length or index of `size` bytes; one too large for `Int` is a malformed file.
    private mutating func length(_ size: Int) throws(VoiceModelError) -> Int {
        guard let value = Int(exactly: try littleEndian(size)) else { throw malformed("a length of more than \(Int.max) in a pickle") }
        return value
    }

    private mutating func signedInteger(_ count: Int) throws(VoiceModelError) -> Int {
        guard count <= 8 else { throw malformed("an integer of \(count) bytes") }
        guard count > 0 else { return 0 }
        let raw = try littleEndian(count)
        let shift = UInt64(64 - 8 * count)
        return Int(Int64(bitPattern: raw << shift) >> Int64(shift))
    }

    private mutating func text(_ count: Int) throws(VoiceModelError) -> String {
        String(decoding: try take(count), as: UTF8.self)
    }

    private mutating func line() throws(VoiceModelError) -> String {
        var collected: [UInt8] = []
        while true {
            let next = try byte()
            if next == 0x0A { return String(decoding: collected, as: UTF8.self) }
            collected.append(next)
        }
    }

    private mutating func pop() throws(VoiceModelError) -> PickleValue {
        guard let last = stack.popLast() else { throw malformed("a pickle pops an empty stack") }
        return last
    }

    private func top() throws(VoiceModelError) -> PickleValue {
        guard let last = stack.last else { throw malformed("a pickle memoizes an empty stack") }
        return last
    }

    private mutating func popMany(_ count: Int) throws(VoiceModelError) -> [PickleValue] {
        guard stack.count >= count else { throw malformed("a pickle pops an empty stack") }
        defer { stack.removeLast(count) }
        return Array(stack.suffix(count))
    }

    private mutating func popToMark() throws(VoiceModelError) -> [PickleValue] {
        guard let mark = marks.popLast(), mark <= stack.count else { throw malformed("a pickle pops to a mark it never set") }
        defer { stack.removeSubrange(mark...) }
        return Array(stack[mark...])
    }

    private func pairs(_ flat: [PickleValue]) throws(VoiceModelError) -> [(key: PickleValue, value: PickleValue)] {
        guard flat.count.isMultiple(of: 2) else { throw malformed("a dict of an odd number of items") }
        return stride(from: 0, to: flat.count, by: 2).map { (flat[$0], flat[$0 + 1]) }
    }

    private func list(at index: Int) throws(VoiceModelError) -> PickleList {
        guard index >= 0, case .list(let list) = stack[index] else { throw malformed("an append to something that is not a list") }
        return list
    }

    private func dict(at index: Int) throws(VoiceModelError) -> PickleDict {
        guard index >= 0, case .dict(let dict) = stack[index] else { throw malformed("a set item on something that is not a dict") }
        return dict
    }

    private func memoized(_ key: Int) throws(VoiceModelError) -> PickleValue {
        guard let value = memo[key] else { throw malformed("a pickle reads memo \(key), which it never wrote") }
        return value
    }

    private func malformed(_ message: String) -> VoiceModelError {
        VoiceModelError(.malformedModel, message)
    }
}
