import Foundation
import StenoTestSupport

/// An HTTP answer as curl received it: status, headers (names lowercased) and body.
struct HTTPAnswer: Sendable {
    var status: Int
    var headers: [String: String]
    var body: Data
    /// Every `Set-Cookie` line (`headers` keeps the last of a repeated header only).
    var setCookies: [String] = []

    /// The `Set-Cookie` line that sets `name`.
    func setCookie(_ name: String) -> String? { setCookies.first { $0.hasPrefix(name + "=") } }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body as a JSON object; an empty one when it is not.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] ?? [:]
    }

    /// `error.code` of an error answer.
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
    /// `error.param` of an error answer.
    var errorField: String? { (json["error"] as? [String: Any])?["param"] as? String }
    var errorMessage: String? { (json["error"] as? [String: Any])?["message"] as? String }
}

/// Requests over real HTTP with curl, as any client would send them.
enum HTTP {
    enum Body {
        case none
        case json(String)
        /// Multipart fields, and files as (field, path).
        case form([(String, String)], files: [(String, String)])
        /// The file's bytes as the whole body.
        case raw(path: String, contentType: String)
        /// A browser's form: `application/x-www-form-urlencoded`, each value escaped.
        case urlencoded([(String, String)])
    }

    static func request(
        _ method: String, _ url: String, key: String? = nil, headers: [String: String] = [:], body: Body = .none, maxSeconds: Int = 60,
        cookieJar: String? = nil
    ) async throws -> HTTPAnswer {
        let directory = FileManager.default.temporaryDirectory
        let bodyPath = directory.appendingPathComponent("steno-http-\(UUID().uuidString).body").path
        let headerPath = directory.appendingPathComponent("steno-http-\(UUID().uuidString).headers").path
        defer {
            try? FileManager.default.removeItem(atPath: bodyPath)
            try? FileManager.default.removeItem(atPath: headerPath)
        }
        var arguments = ["-sS", "-X", method, "-o", bodyPath, "-D", headerPath, "-w", "%{http_code}", "--max-time", String(maxSeconds)]
        if let key { arguments += ["-H", "Authorization: Bearer \(key)"] }
        if let cookieJar { arguments += ["-b", cookieJar, "-c", cookieJar] }
        for (name, value) in headers { arguments += ["-H", "\(name): \(value)"] }
        switch body {
        case .none:
            break
        case let .json(text):
            arguments += ["-H", "Content-Type: application/json", "--data-binary", text]
        case let .form(fields, files):
            for (name, value) in fields { arguments += ["--form-string", "\(name)=\(value)"] }
            for (name, path) in files { arguments += ["-F", "\(name)=@\(path)"] }
        case let .raw(path, contentType):
            arguments += ["-H", "Content-Type: \(contentType)", "--data-binary", "@\(path)"]
        case let .urlencoded(fields):
            for (name, value) in fields { arguments += ["--data-urlencode", "\(name)=\(value)"] }
        }
        arguments.append(url)
        let result = try await ChildProcess.run("/usr/bin/curl", arguments, timeLimit: .seconds(maxSeconds + 10))
        guard let status = Int(result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)), status > 0 else {
            throw TestEnvironmentError("curl \(method) \(url) failed: \(result.standardError)")
        }
        let headerText = (try? String(contentsOfFile: headerPath, encoding: .utf8)) ?? ""
        var headers: [String: String] = [:]
        var cookies: [String] = []
        for line in headerText.split(separator: "\r\n") {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = line[..<colon].lowercased()
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            headers[name] = value
            if name == "set-cookie" { cookies.append(value) }
        }
        let data = FileManager.default.contents(atPath: bodyPath) ?? Data()
        return HTTPAnswer(status: status, headers: headers, body: data, setCookies: cookies)
    }
}
