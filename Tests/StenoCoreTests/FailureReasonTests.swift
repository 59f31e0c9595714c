import StenoCore
import Testing

@Suite("FailureReason")
struct FailureReasonTests {
    @Test("a stored message is shown as it is, with what to do; no generic cause is put in front of it")
    func messageFirst() {
        let reason = FailureReason.describe(errorClass: "media", message: "the media has no chapter 7 (it has 3)")
        #expect(reason == "the media has no chapter 7 (it has 3) (repair or replace the recording and `steno retry`, or enqueue it again with other --chapters)")
        #expect(reason?.contains("cannot be read") == false)
    }

    @Test("without a message, the class's explanation and remedy; every class has both")
    func classOnly() {
        for failureClass in FailureClass.allCases {
            let reason = FailureReason.describe(errorClass: failureClass.rawValue, message: nil)
            #expect(reason == "\(failureClass.explanation) (\(failureClass.remedy))")
            #expect(!failureClass.remedy.isEmpty)
        }
        #expect(FailureReason.describe(errorClass: "something_new", message: nil) == "something_new")
        #expect(FailureReason.describe(errorClass: nil, message: nil) == nil)
    }
}
