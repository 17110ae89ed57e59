// Placeholder so the test target has a source file until its issue lands.
import Testing
