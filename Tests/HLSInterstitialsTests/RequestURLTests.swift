import HLSInterstitials
import HLSPlaylist
import Testing

@Suite struct RequestURLTests {
    static let base = "http://a/b/c/d;p?q"

    /// RFC 3986 §5.4.1 (normal) and §5.4.2 (abnormal) examples.
    @Test(arguments: [
        ("g:h", "g:h"), ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"),
        ("/g", "http://a/g"), ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"),
        ("#s", "http://a/b/c/d;p?q#s"), ("g#s", "http://a/b/c/g#s"), ("g?y#s", "http://a/b/c/g?y#s"),
        (";x", "http://a/b/c/;x"), ("g;x", "http://a/b/c/g;x"), ("g;x?y#s", "http://a/b/c/g;x?y#s"),
        ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("./", "http://a/b/c/"), ("..", "http://a/b/"),
        ("../", "http://a/b/"), ("../g", "http://a/b/g"), ("../..", "http://a/"), ("../../", "http://a/"),
        ("../../g", "http://a/g"),
        ("../../../g", "http://a/g"), ("../../../../g", "http://a/g"), ("/./g", "http://a/g"),
        ("/../g", "http://a/g"), ("g.", "http://a/b/c/g."), (".g", "http://a/b/c/.g"), ("g..", "http://a/b/c/g.."),
        ("..g", "http://a/b/c/..g"), ("./../g", "http://a/b/g"), ("./g/.", "http://a/b/c/g/"),
        ("g/./h", "http://a/b/c/g/h"), ("g/../h", "http://a/b/c/h"), ("g;x=1/./y", "http://a/b/c/g;x=1/y"),
        ("g;x=1/../y", "http://a/b/c/y"), ("g?y/./x", "http://a/b/c/g?y/./x"), ("g?y/../x", "http://a/b/c/g?y/../x"),
        ("g#s/./x", "http://a/b/c/g#s/./x"), ("g#s/../x", "http://a/b/c/g#s/../x"), ("http:g", "http:g"),
    ])
    func resolvesRFC3986Examples(_ reference: String, _ expected: String) {
        #expect(URIReference.resolve(reference, against: Self.base) == expected)
    }

    @Test func resolvesAssetListsAgainstPlaylists() {
        #expect(
            URIReference.resolve("../ads/pod.json", against: "https://cdn.example.com/live/video/index.m3u8")
                == "https://cdn.example.com/live/ads/pod.json"
        )
        #expect(
            URIReference.resolve("../ads/pod.json", against: "https://cdn.example.com/live/audio/en/index.m3u8")
                == "https://cdn.example.com/live/audio/ads/pod.json"
        )
        #expect(
            URIReference.resolve("/ads/pod.json", against: "https://cdn.example.com/live/audio/en/index.m3u8")
                == "https://cdn.example.com/ads/pod.json"
        )
        #expect(URIReference.resolve("x.json", against: "https://h.example.com") == "https://h.example.com/x.json")
        #expect(URIReference.resolve("ads/x.json", against: "main/index.m3u8") == "main/ads/x.json")
    }

    @Test func splitsComponents() {
        let c = URIReference.Components(parsing: "https://user@h.example.com:8080/p/a.json?x=1&y#frag")
        #expect(c.scheme == "https")
        #expect(c.authority == "user@h.example.com:8080")
        #expect(c.path == "/p/a.json")
        #expect(c.query == "x=1&y")
        #expect(c.fragment == "frag")
        #expect(c.description == "https://user@h.example.com:8080/p/a.json?x=1&y#frag")
        #expect(URIReference.isAbsolute("data:application/json,{}"))
        #expect(!URIReference.isAbsolute("ads/1:2.m3u8"))  // "ads/1" is not a scheme name
        #expect(!URIReference.isAbsolute("ad/main.m3u8"))
        #expect(!URIReference.isAbsolute("//cdn.example.com/ad.m3u8"))
        #expect(!URIReference.isAbsolute("1http://x"))
    }

    @Test func addsThePrimaryIDToAssetRequests() {
        #expect(
            InterstitialRequestURL.asset("https://a.example.com/ad.m3u8", primaryID: "ABC-123")
                == "https://a.example.com/ad.m3u8?_HLS_primary_id=ABC-123"
        )
        #expect(
            InterstitialRequestURL.asset("https://a.example.com/ad.m3u8?token=x%2Fy&b=&c#t=5", primaryID: "p 1")
                == "https://a.example.com/ad.m3u8?token=x%2Fy&b=&c&_HLS_primary_id=p%201#t=5"
        )
        #expect(
            InterstitialRequestURL.asset(
                "https://a.example.com/ad.m3u8?_HLS_primary_id=old&x=1&_HLS_primary_id=older",
                primaryID: "new"
            )
                == "https://a.example.com/ad.m3u8?_HLS_primary_id=new&x=1"
        )
        #expect(
            InterstitialRequestURL.asset("https://a.example.com/ad.m3u8?", primaryID: "p")
                == "https://a.example.com/ad.m3u8?_HLS_primary_id=p"
        )
        #expect(
            InterstitialRequestURL.asset("data:application/x-mpegURL;base64,I0VYVE0zVQ==", primaryID: "p")
                == "data:application/x-mpegURL;base64,I0VYVE0zVQ=="
        )
        #expect(
            InterstitialRequestURL.assetList("DATA:application/json,{}", primaryID: "p", liveStartOffset: 3)
                == "DATA:application/json,{}"
        )
    }

    @Test func addsTheStartOffsetOnlyWhenGiven() {
        let list = "https://ads.example.com/pod.json?_HLS_interstitial_id=ad1"
        #expect(InterstitialRequestURL.assetList(list, primaryID: "P") == list + "&_HLS_primary_id=P")
        #expect(
            InterstitialRequestURL.assetList(list, primaryID: "P", liveStartOffset: MediaTime("10.5")) == list
                + "&_HLS_primary_id=P&_HLS_start_offset=10.5"
        )
        #expect(
            InterstitialRequestURL.assetList(list, primaryID: "P", liveStartOffset: MediaTime(nanoseconds: -1)) == list
                + "&_HLS_primary_id=P"
        )
    }

    @Test(arguments: [
        ("10.5", "10.5"), ("3", "3"), ("12.3456", "12.346"), ("0.0004", "0"), ("0.0005", "0.001"), ("7.100", "7.1"),
        ("0", "0"),
    ])
    func formatsStartOffsets(_ input: String, _ expected: String) throws {
        #expect(InterstitialRequestURL.startOffsetText(try #require(MediaTime(input))) == expected)
    }

    @Test func serversAddTheInterstitialID() {
        #expect(
            InterstitialRequestURL.withInterstitialID("break 9/é", in: "https://ads.example.com/pod.json")
                == "https://ads.example.com/pod.json?_HLS_interstitial_id=break%209%2F%C3%A9"
        )
        #expect(URIReference.percentEncodedQueryValue("a-Z_0.~&=+?#") == "a-Z_0.~%26%3D%2B%3F%23")
        #expect(URIReference.percentDecoded("break%209%2F%C3%A9%zz") == "break 9/é%zz")
        let items = URIReference.queryItems(of: "https://x/y?a=1&b&c=%20#f")
        #expect(items.map(\.name) == ["a", "b", "c"])
        #expect(items.map(\.value) == ["1", nil, "%20"])
    }
}
