import Testing

@Test func placeholderConsole() {}
