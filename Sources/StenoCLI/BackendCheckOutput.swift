import Foundation
import StenoCore
import StenoInfrastructure
import StenoTranscription

/// How `steno backend check` prints its reports. Everything printed comes from `BackendCheck.Report`
/// and `TranscriptionError`, whose texts never hold the API key.
enum BackendCheckOutput {
    static func text(_ reports: [BackendCheck.Report]) -> String {
        reports.map { report in
            let latency = "\(report.latency.components.seconds * 1000 + report.latency.components.attoseconds / 1_000_000_000_000_000) ms"
            var line = "\(report.backend): \(report.url) model \(report.model): "
            if let failure = report.failure {
                line += "FAILED (\(failure.failureClass.rawValue)"
                if let status = failure.status { line += ", HTTP \(status)" }
                line += ") in \(latency): \(failure.message)"
                if let backendMessage = failure.backendMessage { line += "; backend said: \(backendMessage)" }
            } else {
                let text = report.text.map { $0.isEmpty ? "no speech" : "\"\($0)\"" } ?? "no text"
                line += "ok in \(latency), \(report.segments ?? 0) segment(s), \(text)"
                if let format = report.responseFormat { line += ", answers \(format)" }
            }
            if let translation = report.translation {
                if let failure = translation.failure {
                    line += "\n  translations: not available"
                    if let status = failure.status { line += " (HTTP \(status))" }
                    line += ": \(failure.message)"
                    if let backendMessage = failure.backendMessage { line += "; backend said: \(backendMessage)" }
                    line += "; media enqueued with --translate would fail"
                } else {
                    line += "\n  translations: ok at \(translation.url ?? "-")"
                }
            }
            return line
        }.joined(separator: "\n")
    }

    static func json(_ reports: [BackendCheck.Report]) -> String {
        encode(reports.map(Entry.init))
    }

    static func json(configurationError error: any Error) -> String {
        encode(["error": "\(error)"])
    }

    private struct Entry: Encodable {
        var backend: String
        var url: String
        var model: String
        var ok: Bool
        var latency_ms: Int64
        var text: String?
        var segments: Int?
        var response_format: String?
        var failure_class: String?
        var error_code: String?
        var http_status: Int?
        var message: String?
        var backend_message: String?
        var translations_ok: Bool?
        var translations_message: String?

        init(_ report: BackendCheck.Report) {
            backend = report.backend
            url = report.url
            model = report.model
            ok = report.succeeded
            let parts = report.latency.components
            latency_ms = parts.seconds * 1000 + parts.attoseconds / 1_000_000_000_000_000
            text = report.text
            segments = report.segments
            response_format = report.responseFormat
            failure_class = report.failure?.failureClass.rawValue
            error_code = report.failure?.code.rawValue
            http_status = report.failure?.status
            message = report.failure?.message
            backend_message = report.failure?.backendMessage
            translations_ok = report.translation?.available
            translations_message = report.translation?.failure.map { failure in
                failure.message + (failure.backendMessage.map { "; backend said: \($0)" } ?? "")
            }
        }
    }

    private static func encode<T: Encodable>(_ value: T) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        guard let data = try? encoder.encode(value) else { return "{}" }
        return String(decoding: data, as: UTF8.self)
    }
}
