import Testing

@Test func placeholderCamera() {}
