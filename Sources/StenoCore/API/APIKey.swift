public import Foundation

/// An API key as `steno keys list` shows it: never its secret, only the prefix that names it.
public struct APIKey: Sendable, Equatable, Codable {
    public var id: Int64
    public var prefix: String
    public var scope: APIScope
    public var tenant: String
    public var name: String?
    public var createdAt: Date
    public var revokedAt: Date?
    public var lastUsedAt: Date?

    public init(
        id: Int64, prefix: String, scope: APIScope, tenant: String, name: String?, createdAt: Date, revokedAt: Date?, lastUsedAt: Date?
    ) {
        self.id = id
        self.prefix = prefix
        self.scope = scope
        self.tenant = tenant
        self.name = name
        self.createdAt = createdAt
        self.revokedAt = revokedAt
        self.lastUsedAt = lastUsedAt
    }
}

/// Who a request comes from: the key that signed it, as the server checked it.
public struct APIPrincipal: Sendable, Equatable {
    public var keyID: Int64
    public var prefix: String
    public var scope: APIScope
    public var tenant: String

    public init(keyID: Int64, prefix: String, scope: APIScope, tenant: String) {
        self.keyID = keyID
        self.prefix = prefix
        self.scope = scope
        self.tenant = tenant
    }
}
