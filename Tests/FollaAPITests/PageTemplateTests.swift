@testable import FollaAPI
import Foundation
import NIOCore
import Testing

/// A page split at its placeholders serves what filling them in by search gave, and never
/// fills in a placeholder that a value brought.
@Suite struct PageTemplateTests {
    @Test func servesWhatReplacingGave() {
        let values = ["__SLUG__": "piazza-maggiore", "__CENTRE__": "{\"lat\": 44.4938, \"lon\": 11.3426}", "__LOCALE__": "\"it-IT\""]
        var replaced = WallPage.template
        for (name, value) in values { replaced = replaced.replacingOccurrences(of: name, with: value) }
        #expect(String(buffer: WallPage.page.render(values)) == replaced)
        let start = "{\"lat\": 1e-05, \"lon\": -0.0, \"zoom\": 13}"
        #expect(String(buffer: MapPage.page.render(["__START__": start]))
                == MapPage.template.replacingOccurrences(of: "__START__", with: start))
    }

    @Test func fillsEveryOccurrenceAndNothingAValueBrings() {
        let page = PageTemplate("a __X__ b __Y__ c __X__", placeholders: ["__X__", "__Y__"])
        #expect(String(buffer: page.render(["__X__": "__Y__", "__Y__": "y"])) == "a __Y__ b y c __Y__")
        #expect(String(buffer: page.render([:])) == "a  b  c ")
        #expect(String(buffer: PageTemplate("none", placeholders: ["__X__"]).render(["__X__": "x"])) == "none")
    }
}
