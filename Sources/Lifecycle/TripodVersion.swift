/// The firmware's version, named in banners, sidecars and logs.
public enum TripodVersion {
    public static let firmware = "0.1.0"
}
