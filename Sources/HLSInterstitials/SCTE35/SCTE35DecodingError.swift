/// The error ``SpliceInfoSection`` throws: the bytes are not a `splice_info_section` (SCTE 35), or
/// its text form (hexadecimal, Base64) is not well formed.
public struct SCTE35DecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of error it is.
    ///
    /// Compare codes, not message text.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String {
            case invalidText, tooLarge, truncated, invalidTableID, lengthMismatch, crcMismatch, invalidCommand
            case invalidDescriptor
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The hexadecimal or Base64 text has a character or a length it cannot have.
        public static let invalidText = Code(.invalidText)
        /// The section is longer than a `splice_info_section` can be (4,096 bytes).
        public static let tooLarge = Code(.tooLarge)
        /// The bytes end before a field the section says is there.
        public static let truncated = Code(.truncated)
        /// The first byte is not `table_id` `0xFC`.
        public static let invalidTableID = Code(.invalidTableID)
        /// `section_length`, `splice_command_length` or `descriptor_loop_length` disagrees with the
        /// bytes.
        public static let lengthMismatch = Code(.lengthMismatch)
        /// The `CRC_32` does not match the section's bytes.
        public static let crcMismatch = Code(.crcMismatch)
        /// A splice command's fields contradict each other or its length.
        public static let invalidCommand = Code(.invalidCommand)
        /// A splice descriptor's fields contradict each other or its length.
        public static let invalidDescriptor = Code(.invalidDescriptor)

        /// The code's name.
        public var description: String { self.base.rawValue }
    }

    /// What kind of error.
    public var code: Code
    /// What is wrong, and what to check.
    public var message: String
    /// The byte offset in the section where the error was found (in the text, for
    /// ``Code/invalidText``).
    public var byteOffset: Int

    /// Creates an error.
    public init(code: Code, message: String, byteOffset: Int) {
        self.code = code
        self.message = message
        self.byteOffset = byteOffset
    }

    /// `byte N: message`.
    public var description: String { "byte \(self.byteOffset): \(self.message)" }
}
