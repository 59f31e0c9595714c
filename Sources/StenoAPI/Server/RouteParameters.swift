import Hummingbird

/// What several route groups read from a request the same way: the media id of the path, and
/// whole numbers in a range.
enum RouteParameters {
    static func mediaID(_ context: APIRequestContext) throws -> Int64 {
        guard let text = context.parameters.get("id"), let id = Int64(text), id > 0 else {
            throw APIError.notFound("there is no such media: media ids are positive whole numbers")
        }
        return id
    }

    static func integer(_ text: String?, field: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw APIError.badRequest("\(field) must be a whole number from \(range.lowerBound) to \(range.upperBound), not \(text)", field: field)
        }
        return value
    }
}
