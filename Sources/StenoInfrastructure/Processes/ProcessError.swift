/// A child process could not be started or watched; `description` says why.
public struct ProcessError: Error, Sendable, CustomStringConvertible {
    public var description: String

    public init(_ description: String) {
        self.description = description
    }
}
