/// An access key pair for the store.
///
/// Neither its `description` nor its mirror shows the secret, so that printing a
/// configuration, logging it or interpolating it by mistake cannot leak it. The secret is read
/// only to derive signing keys.
public struct ObjectStoreCredentials: Sendable, Equatable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    public struct Secret: Sendable, Equatable, CustomStringConvertible {
        let value: String
        public var description: String { "[redacted]" }
    }

    public var accessKeyID: String
    public var secretAccessKey: Secret
    /// Where the pair came from, for messages: `STENO_S3_SECRET_ACCESS_KEY_FILE=/run/secrets/s3`.
    public var source: String

    public init(accessKeyID: String, secretAccessKey: String, source: String) {
        self.accessKeyID = accessKeyID
        self.secretAccessKey = Secret(value: secretAccessKey)
        self.source = source
    }

    public var description: String { "[access key \(accessKeyID) from \(source); secret redacted]" }
    public var debugDescription: String { description }
    public var customMirror: Mirror { Mirror(self, children: ["accessKeyID": accessKeyID, "source": source]) }
}
