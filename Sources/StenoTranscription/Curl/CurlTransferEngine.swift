import CCurl
import Foundation
import StenoCore
import StenoInfrastructure
import Synchronization

/// Runs every HTTP transfer of the process on one dedicated thread, through one curl multi handle.
///
/// Callers await a transfer without blocking Swift's cooperative pool: the engine thread does
/// all socket work and resumes the caller's continuation. Many transfers run at once on the one
/// thread, and connections to a backend are reused between transfers.
///
/// A cancel wakes the thread at once (`curl_multi_wakeup`), which removes the transfer from the
/// multi handle: curl closes its connection and no further byte is sent.
final class CurlTransferEngine: @unchecked Sendable {
    // @unchecked: `active` and the multi handle are touched only on the engine thread; the
    // submission queue is behind its mutex; `wakeup()` is thread-safe in libcurl.

    static let shared = CurlTransferEngine()

    /// How often the thread looks at cancel flags and stalled uploads while transfers run.
    /// Cancels wake it at once; this bounds how late a stall is noticed.
    private static let housekeepingInterval: Int32 = 20

    private let multi: CurlMultiHandle
    private let submissions = Mutex<[CurlTransfer]>([])
    private var active: [UnsafeMutableRawPointer: CurlTransfer] = [:]

    private init() {
        // curl_global_init is not thread-safe in every libcurl build: it runs once, here, under
        // Swift's lazy-global lock, before any handle exists.
        let globalInit = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
        do throws(CurlCallError) {
            try CurlCall.check(globalInit, "curl_global_init")
            multi = try CurlMultiHandle()
        } catch {
            // Without libcurl there is no transcription at all: this is a broken installation.
            fatalError("libcurl could not be initialised: \(error)")
        }
        let thread = Thread { [self] in runLoop() }
        thread.name = "steno.curl"
        thread.start()
    }

    /// Sends the transfer and waits for its outcome.
    func perform(_ transfer: CurlTransfer) async -> Result<HTTPResponse, TransportFailure> {
        let registration = transfer.cancellation.onCancel { [multi] in multi.wakeup() }
        defer { transfer.cancellation.removeHandler(registration) }
        return await withCheckedContinuation { continuation in
            transfer.continuation = continuation
            submissions.withLock { $0.append(transfer) }
            multi.wakeup()
        }
    }

    // MARK: Engine thread

    private func runLoop() {
        while true {
            admitSubmissions()
            abortCancelledAndStalled()
            do throws(CurlCallError) {
                try multi.perform()
                collectFinished()
                try multi.poll(timeoutMilliseconds: active.isEmpty ? 1000 : Self.housekeepingInterval)
            } catch {
                failEveryTransfer(with: error)
            }
        }
    }

    private func admitSubmissions() {
        let incoming = submissions.withLock { queue -> [CurlTransfer] in
            defer { queue.removeAll() }
            return queue
        }
        for transfer in incoming {
            if transfer.cancellation.isCancelled {
                transfer.finish(.failure(.cancelled))
                continue
            }
            do throws(CurlCallError) {
                transfer.startClock()
                try multi.add(transfer.easy)
                active[transfer.easy.pointer] = transfer
            } catch {
                transfer.finish(.failure(.setup(error)))
            }
        }
    }

    private func abortCancelledAndStalled() {
        let now = ContinuousClock.now
        for transfer in active.values {
            if transfer.cancellation.isCancelled {
                end(transfer, .failure(.cancelled))
            } else if transfer.isStalled(at: now) {
                end(transfer, .failure(.stalled(transfer.stallTimeout)))
            }
        }
    }

    private func collectFinished() {
        for (easy, code) in multi.finishedTransfers() {
            guard let transfer = active[easy] else { continue }
            end(transfer, outcome(of: transfer, code: code))
        }
    }

    private func outcome(of transfer: CurlTransfer, code: CURLcode) -> Result<HTTPResponse, TransportFailure> {
        if transfer.cancellation.isCancelled {
            return .failure(.cancelled)
        }
        if code == CURLE_WRITE_ERROR, transfer.responseOverflowed {
            return .failure(.responseTooLarge(limit: CurlTransfer.maximumResponseBytes))
        }
        guard code == CURLE_OK else {
            let message = transfer.easy.errorMessage ?? String(cString: curl_easy_strerror(code))
            return .failure(.curl(code: Int(code.rawValue), message: message))
        }
        do throws(CurlCallError) {
            let status = try transfer.easy.responseCode()
            return .success(HTTPResponse(status: status, headers: transfer.headers, body: transfer.body))
        } catch {
            return .failure(.setup(error))
        }
    }

    /// Takes the transfer off the multi handle (closing its connection if it was still running)
    /// and hands the outcome to the waiting caller.
    private func end(_ transfer: CurlTransfer, _ outcome: Result<HTTPResponse, TransportFailure>) {
        active[transfer.easy.pointer] = nil
        do throws(CurlCallError) {
            try multi.remove(transfer.easy)
            transfer.finish(outcome)
        } catch {
            transfer.finish(.failure(.setup(error)))
        }
    }

    private func failEveryTransfer(with error: CurlCallError) {
        for transfer in active.values {
            end(transfer, .failure(.setup(error)))
        }
        // Do not spin if the multi handle itself is broken.
        Thread.sleep(forTimeInterval: 0.05)
    }
}
