public import Foundation

extension ObjectStoreConfiguration {
    /// Reads the store from `STENO_S3_*` variables; nil when `STENO_S3_BUCKET` is not set (media
    /// then stay on a local directory, the default for one machine).
    ///
    /// | variable | meaning | default |
    /// | --- | --- | --- |
    /// | `STENO_S3_BUCKET` | the bucket media go to; setting it turns the store on | none |
    /// | `STENO_S3_ENDPOINT` | the store's base URL: `http://seaweedfs:8333`, `https://s3.eu-west-1.amazonaws.com` | `https://s3.REGION.amazonaws.com` |
    /// | `STENO_S3_REGION` | the region signatures name (`AWS_REGION` too) | `us-east-1` |
    /// | `STENO_S3_PREFIX` | prepended to every key Steno writes (`steno/`) | none |
    /// | `STENO_S3_ADDRESSING` | `path` (`endpoint/bucket/key`) or `virtual` (`bucket.endpoint/key`) | `path` |
    /// | `STENO_S3_ACCESS_KEY_ID`, `STENO_S3_ACCESS_KEY_ID_FILE` | the access key (`AWS_ACCESS_KEY_ID` too) | required |
    /// | `STENO_S3_SECRET_ACCESS_KEY`, `STENO_S3_SECRET_ACCESS_KEY_FILE` | its secret; a file wins (a Kubernetes Secret) | required |
    /// | `STENO_S3_ABANDONED_UPLOAD_HOURS` | unfinished uploads older than this are aborted | 24 |
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) throws(ObjectStoreError) -> ObjectStoreConfiguration? {
        func value(_ name: String) -> String? {
            guard let text = environment[name]?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
            return text
        }
        func invalid(_ name: String, _ problem: String) -> ObjectStoreError {
            ObjectStoreError(.configuration, "\(name) \(problem)")
        }
        func secret(_ name: String, fallback: String?) throws(ObjectStoreError) -> (value: String, source: String)? {
            if let path = value(name + "_FILE") {
                guard let contents = try? String(contentsOfFile: path, encoding: .utf8) else {
                    throw invalid(name + "_FILE", "=\(path) cannot be read")
                }
                let text = contents.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !text.isEmpty else { throw invalid(name + "_FILE", "names an empty file") }
                return (text, name + "_FILE")
            }
            if let text = value(name) { return (text, name) }
            if let fallback, let text = value(fallback) { return (text, fallback) }
            return nil
        }

        guard let bucket = value("STENO_S3_BUCKET") else { return nil }
        guard (3...63).contains(bucket.count), bucket.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-" || $0 == ".") }) else {
            throw invalid("STENO_S3_BUCKET", "must be a bucket name: 3 to 63 lower-case letters, digits, dots and hyphens")
        }
        let region = value("STENO_S3_REGION") ?? value("AWS_REGION") ?? "us-east-1"
        let endpointText = value("STENO_S3_ENDPOINT") ?? "https://s3.\(region).amazonaws.com"
        guard let endpoint = URLComponents(string: endpointText), let scheme = endpoint.scheme?.lowercased(), scheme == "http" || scheme == "https",
            let host = endpoint.host, !host.isEmpty, endpoint.query == nil, endpoint.user == nil
        else {
            throw invalid("STENO_S3_ENDPOINT", "must be an http(s) URL with a host and no query: http://seaweedfs:8333")
        }
        var addressing = ObjectStoreConfiguration.Addressing.path
        if let text = value("STENO_S3_ADDRESSING") {
            guard let parsed = Addressing(rawValue: text.lowercased()) else { throw invalid("STENO_S3_ADDRESSING", "must be path or virtual") }
            addressing = parsed
        }
        guard let keyID = try secret("STENO_S3_ACCESS_KEY_ID", fallback: "AWS_ACCESS_KEY_ID") else {
            throw invalid("STENO_S3_ACCESS_KEY_ID", "is not set: give the store's access key (or STENO_S3_ACCESS_KEY_ID_FILE)")
        }
        guard let secretKey = try secret("STENO_S3_SECRET_ACCESS_KEY", fallback: "AWS_SECRET_ACCESS_KEY") else {
            throw invalid("STENO_S3_SECRET_ACCESS_KEY", "is not set: give the access key's secret (or STENO_S3_SECRET_ACCESS_KEY_FILE)")
        }
        var prefix = value("STENO_S3_PREFIX") ?? ""
        while prefix.hasPrefix("/") { prefix.removeFirst() }
        if !prefix.isEmpty, !prefix.hasSuffix("/") { prefix += "/" }
        var configuration = ObjectStoreConfiguration(
            endpoint: endpoint, region: region, bucket: bucket, prefix: prefix, addressing: addressing,
            credentials: ObjectStoreCredentials(accessKeyID: keyID.value, secretAccessKey: secretKey.value, source: secretKey.source))
        if let text = value("STENO_S3_ABANDONED_UPLOAD_HOURS") {
            guard let hours = Double(text), hours.isFinite, (0.1...(24 * 30)).contains(hours) else {
                throw invalid("STENO_S3_ABANDONED_UPLOAD_HOURS", "must be a number of hours from 0.1 to 720")
            }
            configuration.abandonedUploadAge = .seconds(hours * 3600)
        }
        return configuration
    }
}
