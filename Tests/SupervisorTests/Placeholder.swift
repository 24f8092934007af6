import Testing

@Test func placeholderSupervisor() {}
