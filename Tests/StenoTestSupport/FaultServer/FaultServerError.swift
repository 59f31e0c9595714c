import Foundation

/// A socket call of the fault server failed.
public enum FaultServerError: Error, CustomStringConvertible {
    case socket(String, Int32)

    public var description: String {
        switch self {
        case .socket(let call, let code): "\(call) failed: \(String(cString: strerror(code)))"
        }
    }
}
