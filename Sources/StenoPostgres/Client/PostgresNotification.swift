/// One `NOTIFY` received on a channel the listener follows.
public struct PostgresNotification: Sendable, Equatable {
    public var channel: String
    public var payload: String
    public var senderProcessID: Int32

    public init(channel: String, payload: String, senderProcessID: Int32) {
        self.channel = channel
        self.payload = payload
        self.senderProcessID = senderProcessID
    }
}
