import Boards
import Foundation
import Hardware
import ManualLoop
@testable import SimulatedHardware
import Testing

/// `sim scene object` and `sim pose` (docs/photogrammetry.md): the pinhole, the turntable, the
/// pose's text, and the truth each frame carries.
@Suite struct ObjectSceneTests {
    static let pixelArray = PixelSize(width: 4608, height: 2592)
    /// The IMX708's 4.74 mm lens over its 1.4 µm pixels.
    static let focalSensorPixels = 4.74 / 0.0014

    /// Where `world` images, written out for a camera at (0, −2, 0.3) looking along +y, level:
    /// right = +x, down = −z, forward = +y; output pixels of `crop` at `size`.
    static func expectedPixel(_ world: SIMD3<Double>, crop: PixelRect, size: PixelSize) -> SIMD2<Double> {
        let x = world.x, y = -(world.z - 0.3), z = world.y + 2
        let scale = Double(crop.width) / Double(size.width)
        return SIMD2((Double(pixelArray.width) / 2 - Double(crop.x) + focalSensorPixels * x / z) / scale,
                     (Double(pixelArray.height) / 2 - Double(crop.y) + focalSensorPixels * y / z) / scale)
    }

    /// What the ray through output pixel `pixel` hits first, in the world.
    static func hit(_ camera: ObjectSceneCamera, _ pixel: SIMD2<Double>, turnDegrees: Double = 0) -> SIMD3<Double> {
        let direction = camera.ray(x: pixel.x, y: pixel.y)
        let radians = turnDegrees * .pi / 180
        let traced = ObjectScene.trace(origin: camera.pose.positionMetres, direction: direction,
                                       turn: (cos(radians), sin(radians)), textures: ObjectScene.textures)
        return camera.pose.positionMetres + traced.distance * direction
    }

    static func distance(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> Double { ((a - b) * (a - b)).sum().squareRoot() }

    @Test(arguments: [
        (PixelRect(x: 0, y: 0, width: 4608, height: 2592), PixelSize(width: 1152, height: 648)),  // the whole array, a quarter
        (PixelRect(x: 1152, y: 648, width: 2304, height: 1296), PixelSize(width: 1152, height: 648)),  // a centred crop, half
        (PixelRect(x: 0, y: 0, width: 4608, height: 2592), PixelSize(width: 384, height: 216)),  // sim-small's size
    ])
    func knownPointsImageWhereThePinholeSaysAndTheRayThereHitsThem(crop: PixelRect, size: PixelSize) throws {
        let pose = try SimulatedPose(parsing: "0,-2,0.3 lookat 0,0,0.3")
        let camera = ObjectSceneCamera(pixelArray: Self.pixelArray, crop: crop, size: size,
                                       focalLengthSensorPixels: Self.focalSensorPixels, pose: pose)
        // On the box's face toward the camera (y = −0.2), on the ground, and on the backdrop.
        let points: [SIMD3<Double>] = [SIMD3(0.1, -0.2, 0.45), SIMD3(-0.15, -0.2, 0.1), SIMD3(0.3, -1, 0),
                                       SIMD3(-1.5, (3.5 * 3.5 - 1.5 * 1.5).squareRoot(), 1.2)]
        for point in points {
            let pixel = Self.expectedPixel(point, crop: crop, size: size)
            if crop.x == 0, crop.width == Self.pixelArray.width {
                let projected = try #require(pose.project(point, focalLengthPixels: Self.focalSensorPixels * Double(size.width) / Double(crop.width),
                                                          centre: SIMD2(Double(size.width) / 2, Double(size.height) / 2)))
                #expect(abs(projected.x - pixel.x) < 1e-9 && abs(projected.y - pixel.y) < 1e-9, "\(point): \(projected) vs \(pixel)")
            }
            let inside = pixel.x >= 0 && pixel.y >= 0 && pixel.x < Double(size.width) && pixel.y < Double(size.height)
            guard inside else { continue }  // a crop that does not see it
            #expect(Self.distance(Self.hit(camera, pixel), point) < 1e-6, "\(point) at \(pixel) hit \(Self.hit(camera, pixel))")
        }
    }

    /// Turned 90° counter-clockwise (seen from above), the box's 0.4 m side faces −y at y = −0.25.
    @Test func theTurntableTurnsTheObjectCounterClockwise() throws {
        let pose = try SimulatedPose(parsing: "0,-2,0.3 lookat 0,0,0.3")
        let camera = ObjectSceneCamera(pixelArray: Self.pixelArray, crop: PixelRect(x: 0, y: 0, width: 4608, height: 2592),
                                       size: PixelSize(width: 1152, height: 648), focalLengthSensorPixels: Self.focalSensorPixels, pose: pose)
        let point = SIMD3(0.1, -0.25, 0.45)
        let pixel = Self.expectedPixel(point, crop: camera.crop, size: camera.size)
        #expect(Self.distance(Self.hit(camera, pixel, turnDegrees: 90), point) < 1e-6)
        // Unturned, the same ray meets the face at y = −0.2 instead.
        #expect(abs(Self.hit(camera, pixel).y - -0.2) < 1e-6)
        // 0.22 m right of the axis: inside the box unturned (half width 0.25), beside it turned (half width 0.2).
        let side = Self.expectedPixel(SIMD3(0.22, -0.25, 0.3), crop: camera.crop, size: camera.size)
        #expect(Self.hit(camera, side, turnDegrees: 90).y > 0, "turned, the ray passes the box")
        #expect(abs(Self.hit(camera, side).y - -0.2) < 1e-6)
    }

    @Test func poseTextParsesAndBadPosesSayWhy() throws {
        let pose = try SimulatedPose(parsing: "1.6,0,0.9 lookat 0,0,0.35")
        #expect(pose.positionMetres == SIMD3(1.6, 0, 0.9) && pose.lookAtMetres == SIMD3(0, 0, 0.35))
        #expect(pose.text == "1.6,0,0.9 lookat 0,0,0.35")
        #expect(try SimulatedPose(parsing: pose.text) == pose)
        let axes = pose.axes
        #expect(Self.distance(axes.right, SIMD3(0, 1, 0)) < 1e-12, "level: looking at −x, right is +y")
        #expect(axes.down.z < 0)
        let bad: [(String, String)] = [
            ("1,2 lookat 0,0,0", "not three numbers"), ("a,b,c lookat 0,0,0", "not three numbers"),
            ("1,0,1 at 0,0,0", "X,Y,Z lookat X,Y,Z"), ("1,0,1", "X,Y,Z lookat X,Y,Z"),
            ("1,0,1 lookat 1,0,1", "at least 1 cm"), ("0,0,2 lookat 0,0,0", "straight up or down"),
            ("1000,0,1 lookat 0,0,0", "from -100 to 100"), ("nan,0,1 lookat 0,0,0", "from -100 to 100"),
            ("inf,0,1 lookat 0,0,0", "from -100 to 100"), ("0,0,1 lookat -inf,0,0", "from -100 to 100"),
            ("1e400,0,1 lookat 0,0,0", "from -100 to 100"), ("1,0,1 lookat 1,0,1.005", "at least 1 cm"),
            ("0,0,2 lookat 0.0001,0,0", "straight up or down"), ("0,0,-1 lookat 0,0,5", "straight up or down"),
        ]
        for (text, reason) in bad {
            #expect(throws: HardwareError.self, "\(text)") { try SimulatedPose(parsing: text) }
            do { _ = try SimulatedPose(parsing: text) } catch { #expect(error.message.contains(reason), "\(text): \(error.message)") }
        }
    }

    @Test func sceneWordsParseAndBadSpinsSayWhy() throws {
        let still = try SimulatedScene().parsed(["object"])
        #expect(still.object == ObjectScene() && still.name == "object")
        let spinning = try SimulatedScene().parsed(["object", "spin", "60"])
        #expect(spinning.object?.spinDegreesPerSecond == 60 && spinning.name == "object spin 60")
        #expect(abs(spinning.subjectDistanceMetres - (1.6 * 1.6 + 0.55 * 0.55).squareRoot()) < 1e-9, "focus on the point looked at")
        #expect(try spinning.parsed(["even"]).object == nil)
        for words in [["object", "spin"], ["object", "spin", "fast"], ["object", "spin", "1e9"], ["object", "turn", "60"], ["teapot"],
                      ["object", "spin", "nan"], ["object", "spin", "inf"], ["object", "spin", "-inf"], ["object", "spin", "3600.5"],
                      ["object", "spin", "60", "now"], []] {
            #expect(throws: HardwareError.self, "\(words)") { try SimulatedScene().parsed(words) }
        }
        // Names and poses not made by parsing still print (no trap on a value Int cannot hold).
        var wild = SimulatedScene()
        wild.object = ObjectScene(spinDegreesPerSecond: .infinity)
        #expect(wild.name == "object spin inf")
        #expect(SimulatedPose(positionMetres: SIMD3(1e300, 0, 0), lookAtMetres: SIMD3(0, 0, 0)).text.hasPrefix("1e+300,0,0 lookat"))
    }

    @Test func theTurnIsTheSpinTimesTheWallClock() {
        let scene = ObjectScene(spinDegreesPerSecond: 60)
        // 60 °/s × (10⁹ s + 0.5 s): 6·10¹⁰ ≡ 240 (mod 360), plus 30.
        #expect(abs(scene.rotationDegrees(atWallClockNanoseconds: 1_000_000_000_500_000_000) - 270) < 1e-6)
        #expect(abs(scene.rotationDegrees(atWallClockNanoseconds: 1_000_000_000_600_000_000)
                    - scene.rotationDegrees(atWallClockNanoseconds: 1_000_000_000_500_000_000) - 6) < 1e-6)
        #expect(abs(ObjectScene(spinDegreesPerSecond: -60).rotationDegrees(atWallClockNanoseconds: 1_000_000_000_500_000_000) - 90) < 1e-6)
        #expect(ObjectScene().rotationDegrees(atWallClockNanoseconds: 1_000_000_000_500_000_000) == 0)
    }

    /// Each frame's truth: the object turned as at the middle of its exposure on the wall clock.
    @Test func framesCarryTheTruthAtTheMiddleOfTheirExposure() throws {
        let loop = ManualEventLoop()
        let scene = try SimulatedScene().parsed(["object", "spin", "60"]).posed(try SimulatedPose(parsing: "1.6,0,0.9 lookat 0,0,0.35"))
        let provider = SimulatedCameraProvider(loop: loop, sensor: try SensorDescription.embedded(model: "imx708"), scene: scene)
        provider.maximumRenderSize = PixelSize(width: 192, height: 108)
        let camera = try #require(try provider.open(id: provider.cameraID) as? SimulatedCamera)
        let log = SimulatedFramePixelsTests.Log()
        camera.setEventHandler { if case .requestCompleted(let c) = $0 { log.completed.append(c) } }
        _ = try camera.configure([StreamConfiguration(role: .viewfinder, pixelFormat: .bgr888, size: PixelSize(width: 1280, height: 720))])
        try camera.start(controls: [ControlName.aeEnable: .bool(false), ControlName.exposureTime: .int32(6000)])
        for cookie in 1...4 { try camera.queueRequest(CaptureRequest(cookie: UInt64(cookie), roles: [.viewfinder])) }
        loop.advance(by: .seconds(1))
        camera.stop()
        let frames = log.completed.filter(\.isComplete)
        #expect(frames.count == 4)
        var turns: [(Int64, Double)] = []
        for frame in frames {
            let truth = try #require(SimulationTruth(metadata: frame.metadata))
            let start = try #require(frame.metadata[ControlName.frameWallClock]?.int64Value)
            let exposure = try #require(frame.metadata[ControlName.exposureTime]?.doubleValue)
            let middle = start + Int64(exposure * 500)
            #expect(truth.exposureMiddleWallClockNanoseconds == middle)
            #expect(truth.scene == "object spin 60" && truth.positionMetres == [1.6, 0, 0.9] && truth.lookAtMetres == [0, 0, 0.35])
            #expect(abs(try #require(truth.objectRotationDegrees) - ObjectScene(spinDegreesPerSecond: 60).rotationDegrees(atWallClockNanoseconds: middle)) < 1e-9)
            turns.append((middle, try #require(truth.objectRotationDegrees)))
        }
        // Between frames the object turned 60 °/s times the time between their exposures.
        for (a, b) in zip(turns, turns.dropFirst()) {
            let expected = 60 * Double(b.0 - a.0) / 1e9
            let turned = (b.1 - a.1 + 360).truncatingRemainder(dividingBy: 360)
            #expect(expected > 0 && abs(turned - expected) < 1e-6, "\(turned) vs \(expected)")
        }
    }

    /// The focus target is derived, not copied: the point looked at in the object scene, and the
    /// chart where it was once the chart is back.
    @Test func theFocusTargetFollowsThePoseAndTheChartKeepsItsDistance() throws {
        let near = SimulatedScene(subjectDistanceMetres: 0.3)
        let object = try near.parsed(["object"])
        #expect(abs(object.posed(try SimulatedPose(parsing: "0,-2,0.35 lookat 0,0,0.35")).subjectDistanceMetres - 2) < 1e-9)
        #expect(try object.parsed(["even"]).subjectDistanceMetres == 0.3)
        #expect(try object.parsed(["depth"]).subjectDistanceMetres == 0.3)
        #expect(try object.parsed(["depth"]).parsed(["object"]).depthStripDioptres == nil, "no strips behind the object")
        #expect(near.posed(try SimulatedPose(parsing: "0,-2,0.35 lookat 0,0,0.35")).subjectDistanceMetres == 0.3, "the chart ignores the pose")
    }

    /// The drawing is the traced rays through the colour response, turns with the turntable, and is
    /// drawn once per key by the renderer's cache.
    @Test func theDrawingIsTheRaysTurnsWithTheObjectAndIsCachedPerKey() throws {
        let pose = SimulatedPose.standard
        let crop = PixelRect(x: 0, y: 0, width: 4608, height: 2592), size = PixelSize(width: 96, height: 54)
        func draw(_ degrees: Double, _ kind: ScenePlanes.Kind = .rgb) -> ScenePlanes {
            SimulatedFrameRenderer.drawObjectScene(pixelArray: Self.pixelArray, crop: crop, size: size, kind: kind, cfa: [0, 1, 1, 2],
                                                   focalLengthSensorPixels: Self.focalSensorPixels, pose: pose, rotationDegrees: degrees)
        }
        let still = draw(0)
        #expect(still.values.count == 3 * size.area + 8)
        #expect(draw(0).values == still.values, "deterministic")
        // The middle pixel: what its ray meets, through the sensor's colour response.
        let camera = ObjectSceneCamera(pixelArray: Self.pixelArray, crop: crop, size: size, focalLengthSensorPixels: Self.focalSensorPixels, pose: pose)
        let (i, j) = (48, 27)
        let rgb = ObjectScene.trace(origin: pose.positionMetres, direction: camera.ray(x: Double(i) + 0.5, y: Double(j) + 0.5),
                                    turn: (1, 0), textures: ObjectScene.textures).colour
        let m = SimulatedColourResponse.sensorFromSRGB.map(Float.init)
        for c in 0..<3 {
            let expected = (SIMD3(m[c * 3], m[c * 3 + 1], m[c * 3 + 2]) * rgb).sum()
            #expect(abs(still.values[c * size.area + j * size.width + i] - expected) < 1e-6)
        }
        // Turned, the object (in the middle of the frame) looks different; the mosaic is one plane.
        let turned = draw(45)
        let changed = zip(still.values, turned.values).filter { abs($0 - $1) > 1e-4 }.count
        #expect(changed > size.area / 20, "\(changed) of \(3 * size.area) values changed")
        #expect(draw(0, .mosaic).values.count == size.area + 8)
        // Drawn once per key.
        let cache = ObjectPlaneCache()
        let key = ObjectPlaneCache.Key(crop: crop, size: size, kind: .rgb, pose: pose, rotationDegrees: 0, blurSteps: 0, coarse: 1)
        var draws = 0
        for _ in 0..<3 { _ = cache.planes(for: key) { draws += 1; return still } }
        var other = key
        other.rotationDegrees = 45
        _ = cache.planes(for: other) { draws += 1; return turned }
        #expect(draws == 2)
    }
}
