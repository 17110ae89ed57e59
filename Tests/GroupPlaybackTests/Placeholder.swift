// Placeholder until issue 12 builds GroupPlayback: the target and this test go with it if that
// issue is closed without it.
import GroupPlayback
import Testing

@Test func groupPlaybackModuleNamesItself() {
    #expect(GroupPlaybackModule.name == "GroupPlayback")
}
