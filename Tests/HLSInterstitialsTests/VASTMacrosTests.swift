import HLSInterstitials
import HLSPlaylist
import Testing

/// `VASTMacros` (issue 25, part 2): macros filled in both spellings, unknown ones `-1` (VAST 4.1),
/// and nothing a URL already encodes is encoded twice.
@Suite struct VASTMacrosTests {
    let macros = VASTMacros(["ERRORCODE": "405", "CACHEBUSTING": "12345678", "TIMESTAMP": "2025-01-01T00:00:00.000Z"])

    @Test func bothSpellingsAreFilledAndValuesEncoded() {
        #expect(
            self.macros.fill("https://t.example/e?c=[ERRORCODE]&r=%5BCACHEBUSTING%5D&t=%5bTIMESTAMP%5d")
                == "https://t.example/e?c=405&r=12345678&t=2025-01-01T00%3A00%3A00.000Z"
        )
    }

    /// An unfilled macro used to make every `%XX` of the URL `%25XX` on its way out.
    @Test func unknownMacrosAreMinusOneAndEscapesStayAsTheyAre() {
        #expect(
            self.macros.fill(
                "https://t.example/p%20q/e?u=https%3A%2F%2Fx.example%2Fa&m=[CONTENTPLAYHEAD]&n=[ADPLAYHEAD]"
            )
                == "https://t.example/p%20q/e?u=https%3A%2F%2Fx.example%2Fa&m=-1&n=-1"
        )
    }

    /// What a URL cannot hold is encoded once; an IPv6 host keeps its brackets; text in brackets
    /// that is no macro name stays text (encoded).
    @Test func invalidCharactersAreEncodedOnce() {
        #expect(self.macros.fill("http://[::1]:8080/a b?q=\"é\"") == "http://[::1]:8080/a%20b?q=%22%C3%A9%22")
        #expect(
            self.macros.fill("/e?x=[not a macro]&y=[lower]&z=100%")
                == "/e?x=%5Bnot%20a%20macro%5D&y=%5Blower%5D&z=100%25"
        )
        #expect(self.macros.fill("/e?nul=\u{0}") == "/e?nul=%00")
        // Filling twice changes nothing more: the result is a fixed point.
        let once = self.macros.fill("https://t.example/e?a=%41[ERRORCODE]&b=[X]&c=|")
        #expect(self.macros.fill(once) == once)
    }

    @Test func hostileInput() {
        let long = String(repeating: "[ERRORCODE]", count: 10_000)
        #expect(self.macros.fill(long) == String(repeating: "405", count: 10_000))
        let name = "[" + String(repeating: "A", count: 100) + "]"
        #expect(self.macros.fill(name) == "%5B" + String(repeating: "A", count: 100) + "%5D")
        #expect(self.macros.fill("%5") == "%255")
        #expect(self.macros.fill("[") == "%5B" && self.macros.fill("%5B") == "%5B")
    }

    @Test func playheads() {
        #expect(VASTMacros.playhead(MediaTime(milliseconds: 3_723_004)) == "01:02:03.004")
        #expect(VASTMacros.playhead(.zero) == "00:00:00.000")
        #expect(VASTMacros.playhead(MediaTime(seconds: -5)) == "00:00:00.000")
    }
}
