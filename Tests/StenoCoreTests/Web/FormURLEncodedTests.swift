import StenoCore
import StenoInfrastructure
import Testing

@Suite("application/x-www-form-urlencoded, as forms send it")
struct FormURLEncodedTests {
    @Test("plus is a space, escapes are bytes of UTF-8, and the first of a repeated name wins")
    func decoding() {
        let form = FormURLEncoded("q=the+harbor+%22filled%22&lang=pt-BR&empty=&flag&q=second&name=Caf%C3%A9%20%2B%201")
        #expect(form["q"] == "the harbor \"filled\"")
        #expect(form["lang"] == "pt-BR")
        #expect(form["empty"] == "")
        #expect(form["flag"] == "")
        #expect(form["name"] == "Café + 1")
        #expect(form["missing"] == nil)
        #expect(form.fields.count == 6)
    }

    @Test("a malformed escape is kept as it stands, and an empty body has no fields")
    func malformed() {
        #expect(FormURLEncoded("a=100%&b=%zz&c=%4")["a"] == "100%")
        #expect(FormURLEncoded("a=100%&b=%zz&c=%4")["b"] == "%zz")
        #expect(FormURLEncoded("a=100%&b=%zz&c=%4")["c"] == "%4")
        #expect(FormURLEncoded("").fields.isEmpty)
        #expect(FormURLEncoded("&&").fields.isEmpty)
    }
}
