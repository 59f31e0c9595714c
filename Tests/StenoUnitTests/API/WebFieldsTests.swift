import Testing

@testable import StenoAPI
import HTTPTypes

@Suite("The web view's forms and queries, read by hummingbird's URLEncodedFormDecoder")
struct WebFieldsTests {
    @Test("plus is a space, escapes are bytes of UTF-8, and an empty text has no fields")
    func decoding() throws {
        let form = try WebFields("q=the+harbor+%22filled%22&lang=pt-BR&empty=&name=Caf%C3%A9%20%2B%201", from: .query)
        #expect(form["q"] == "the harbor \"filled\"")
        #expect(form["lang"] == "pt-BR")
        #expect(form["empty"] == "")
        #expect(form["name"] == "Café + 1")
        #expect(form["missing"] == nil)
        #expect(try WebFields("", from: .form)["q"] == nil)
    }

    @Test("a name given twice or a broken escape is a 400 that says what is wrong and does not echo the text")
    func refused() {
        for text in ["q=one&q=two", "key=stk_secret%zz", "key=stk_secret%4"] {
            let error = #expect(throws: APIError.self, "\(text)") { try WebFields(text, from: .form) }
            #expect(error?.status == .badRequest)
            #expect(error.map { "\($0)" }?.contains("stk_secret") == false, "the form's text is echoed: \(String(describing: error))")
            #expect(error.map { "\($0)" }?.contains("given twice") == true)
        }
    }
}
