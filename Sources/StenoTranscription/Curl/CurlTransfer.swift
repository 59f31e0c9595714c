import CCurl
import StenoCore
import StenoInfrastructure

/// One HTTP request in flight: the easy handle with everything it points to, and the response
/// as it arrives.
///
/// Created on the caller's thread; once submitted, only the engine thread touches it, including
/// from curl's callbacks, which curl runs inside `curl_multi_perform` on that thread.
final class CurlTransfer: @unchecked Sendable {
    // @unchecked: mutable state is touched only on the engine thread after submission;
    // `cancellation` is itself thread-safe.
    static let maximumResponseBytes = 32 * 1024 * 1024

    let easy: CurlEasyHandle
    // The body and header list must outlive the transfer: curl reads them while it runs.
    private let mime: CurlMime?
    private let headerList: CurlHeaderList
    let cancellation: CancellationSignal
    let stallTimeout: Duration
    let connectionGuard: ConnectionGuard?
    private let bodyFile: ResponseFile?

    private(set) var body: [UInt8] = []
    private(set) var headers: [String: String] = [:]
    private(set) var responseStarted = false
    private(set) var responseOverflowed = false
    private var uploadedBytes = 0
    private var uploadTotal = 0
    private var lastUploadProgress = ContinuousClock.now
    private var uploadStarted = false
    var continuation: CheckedContinuation<Result<HTTPResponse, TransportFailure>, Never>?

    init(request: HTTPRequest, cancellation: CancellationSignal) throws(CurlCallError) {
        easy = try CurlEasyHandle()
        headerList = try CurlHeaderList(lines: request.headerLines)
        self.cancellation = cancellation
        stallTimeout = request.stallTimeout
        connectionGuard = request.connectionGuard
        bodyFile = request.bodyFile

        switch request.body {
        case .multipart(let fields, let file):
            let mime = try CurlMime(for: easy)
            for field in fields {
                try mime.addField(name: field.name, value: field.value)
            }
            try mime.addFile(
                name: file.field, fileName: file.fileName, contentType: file.contentType, bytes: file.bytes,
                owner: file.owner)
            try easy.set(mime: mime)
            self.mime = mime
        case .bytes(let bytes):
            try easy.set(postBody: bytes)
            mime = nil
        case .none:
            try easy.set(CURLOPT_HTTPGET, 1)
            mime = nil
        }

        if let method = request.method {
            if method == "HEAD" {
                try easy.set(CURLOPT_NOBODY, 1)
            } else {
                try easy.set(CURLOPT_CUSTOMREQUEST, method)
            }
        }
        try easy.set(CURLOPT_URL, request.url)
        // Only HTTP(S): a base URL must not make curl speak FILE, FTP or anything else.
        try easy.set(CURLOPT_PROTOCOLS_STR, "http,https")
        // curl's verbose output would print the Authorization header; it stays off.
        try easy.set(CURLOPT_VERBOSE, 0)
        // Signals cannot be used for timeouts in a multi-threaded process.
        try easy.set(CURLOPT_NOSIGNAL, 1)
        // A redirect of a POST is reported as a configuration problem rather than followed:
        // following it would re-post the audio and could send the key to another host. A GET
        // may follow a few, each checked by the connection guard when there is one.
        try easy.set(CURLOPT_FOLLOWLOCATION, request.followRedirects > 0 ? 1 : 0)
        if request.followRedirects > 0 {
            try easy.set(CURLOPT_MAXREDIRS, request.followRedirects)
            try easy.set(CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
        }
        try easy.set(CURLOPT_CONNECTTIMEOUT_MS, Int(request.connectTimeout.milliseconds))
        try easy.set(CURLOPT_TIMEOUT_MS, Int(max(1, request.totalTimeout.milliseconds)))
        try easy.set(CURLOPT_TCP_KEEPALIVE, 1)
        try easy.set(CURLOPT_ACCEPT_ENCODING, "")
        try easy.set(CURLOPT_USERAGENT, "steno/\(StenoVersion.current)")
        try easy.set(CURLOPT_HTTPHEADER, list: headerList)

        let context = Unmanaged.passUnretained(self).toOpaque()
        if connectionGuard != nil {
            try easy.set(openSocketCallback: curlOpenSocket)
            try easy.set(CURLOPT_OPENSOCKETDATA, pointer: context)
        }
        try easy.set(CURLOPT_WRITEFUNCTION, writeCallback: curlWriteBody)
        try easy.set(CURLOPT_WRITEDATA, pointer: context)
        try easy.set(CURLOPT_HEADERFUNCTION, writeCallback: curlWriteHeader)
        try easy.set(CURLOPT_HEADERDATA, pointer: context)
        try easy.set(CURLOPT_NOPROGRESS, 0)
        try easy.set(progressCallback: curlProgress)
        try easy.set(CURLOPT_XFERINFODATA, pointer: context)
    }

    // MARK: Engine thread

    fileprivate func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if let bodyFile {
            // Only a successful answer is the recording; an error page is kept for its status.
            if (try? easy.responseCode()).map({ (200..<300).contains($0) }) == true {
                let written = bodyFile.write(bytes)
                if !written, bodyFile.overflowed { responseOverflowed = true }
                return written
            }
        }
        guard body.count + bytes.count <= Self.maximumResponseBytes else {
            responseOverflowed = true
            return false
        }
        body.append(contentsOf: bytes)
        return true
    }

    fileprivate func receiveHeaderLine(_ line: String) {
        let trimmed = line.trimmingWhitespace
        if trimmed.hasPrefix("HTTP/") {
            // A new response begins (after `100 Continue`, say): forget the previous headers.
            headers.removeAll()
            let status = trimmed.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            if status >= 200 { responseStarted = true }
            return
        }
        guard let colon = trimmed.firstIndex(of: ":") else { return }
        let name = trimmed[..<colon].lowercased()
        let value = String(trimmed[trimmed.index(after: colon)...]).trimmingWhitespace
        headers[name] = value
    }

    fileprivate func recordProgress(uploaded: Int, uploadTotal total: Int) -> Bool {
        if uploaded > uploadedBytes {
            uploadedBytes = uploaded
            lastUploadProgress = .now
        }
        uploadTotal = total
        return !cancellation.isCancelled
    }

    /// Whether the upload has sent nothing for the stall timeout. Until the connection (and TLS)
    /// is up, the connect timeout applies instead; once the backend starts to answer, or every
    /// byte is sent, the backend is working and only the request timeout applies: a long chunk
    /// can take a backend a while to transcribe without a byte moving.
    func isStalled(at now: ContinuousClock.Instant) -> Bool {
        if !uploadStarted {
            guard easy.isReadyToTransfer else { return false }
            uploadStarted = true
            lastUploadProgress = now
        }
        let uploading = !responseStarted && (uploadTotal == 0 || uploadedBytes < uploadTotal)
        return uploading && now - lastUploadProgress >= stallTimeout
    }

    func startClock() {
        lastUploadProgress = .now
    }

    func finish(_ outcome: Result<HTTPResponse, TransportFailure>) {
        mime?.settle()
        continuation?.resume(returning: outcome)
        continuation = nil
    }
}

private let curlWriteBody: CurlWriteCallback = { data, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard let data, length > 0 else { return length }
    // Returning less than `length` makes curl abort the transfer with CURLE_WRITE_ERROR.
    return transfer.receiveBody(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}

private let curlWriteHeader: CurlWriteCallback = { data, size, count, context in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    let length = size * count
    guard let data, length > 0 else { return length }
    let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
    transfer.receiveHeaderLine(line)
    return length
}

private let curlProgress: CurlProgressCallback = { context, _, _, uploadTotal, uploaded in
    guard let context else { return 0 }
    let transfer = Unmanaged<CurlTransfer>.fromOpaque(context).takeUnretainedValue()
    // A non-zero return aborts the transfer with CURLE_ABORTED_BY_CALLBACK.
    return transfer.recordProgress(uploaded: uploaded, uploadTotal: uploadTotal) ? 0 : 1
}
