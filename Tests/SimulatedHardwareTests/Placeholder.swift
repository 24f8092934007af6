import Testing

@Test func placeholderSimulatedHardware() {}
