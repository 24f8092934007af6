import Testing

@Test func placeholderLinuxHardware() {}
