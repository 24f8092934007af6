import Testing

@Test func placeholderMotion() {}
