import Testing

@testable import StenoAPI

@Suite("The reader's segment list, written without the template engine")
struct SegmentListHTMLTests {
    @Test("every text is escaped, in content and in attributes, and flagged text is labelled")
    func escaping() {
        let segments = [
            ReaderView.Segment(
                index: 0, anchor: "s-0", start: "1.00", end: "2.00", clock: "0:01", link: "/media/1/read?chapter=1&t=1.00#s-0",
                text: "<script>alert('x')</script> & \"quotes\"", words: nil, flagged: false, flagLabel: nil, flagExplanation: nil),
            ReaderView.Segment(
                index: 1, anchor: "s-1", start: "2.00", end: "3.00", clock: "0:02", link: "/media/1/read?chapter=1&t=2.00#s-1",
                text: "ignored", words: [.init(text: "<b>bold</b>", start: "2.00", end: "2.50")], flagged: true,
                flagLabel: "repetition loop", flagExplanation: "a \"loop\" <again>"),
        ]
        let html = SegmentListHTML.render(segments)
        #expect(html.contains("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt; &amp; &quot;quotes&quot;"))
        #expect(!html.contains("<script>") && !html.contains("<b>"))
        #expect(html.contains("href=\"/media/1/read?chapter=1&amp;t=1.00#s-0\""))
        #expect(html.contains("<span class=\"w\" data-start=\"2.00\" data-end=\"2.50\">&lt;b&gt;bold&lt;/b&gt;</span>"))
        #expect(html.contains("class=\"segment flagged\"") && html.contains("title=\"a &quot;loop&quot; &lt;again&gt;\">flagged: repetition loop"))
        #expect(!html.contains("ignored"), "a segment with words is written word by word")
    }
}
