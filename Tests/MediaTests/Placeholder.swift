import Testing

@Test func placeholderMedia() {}
