import StenoStore
import Foundation
import Synchronization

/// This worker's view of the backends the fleet considers down: refreshed from
/// `backend_outages` with every heartbeat, and at once when this worker records or ends one.
final class KnownOutages: Sendable {
    private let outages = Mutex<[String: WorkStore.Outage]>([:])

    func replace(with list: [WorkStore.Outage]) {
        outages.withLock { $0 = Dictionary(list.map { ($0.backend, $0) }) { $1 } }
    }

    func learn(_ outage: WorkStore.Outage) {
        outages.withLock { $0[outage.backend] = outage }
    }

    func forget(_ backend: String) {
        _ = outages.withLock { $0.removeValue(forKey: backend) }
    }

    func outage(of backend: String) -> WorkStore.Outage? {
        outages.withLock { $0[backend] }
    }

    var all: [WorkStore.Outage] { outages.withLock { Array($0.values) } }
}
