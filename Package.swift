// swift-tools-version:6.0
// Tripod: headless manual-camera firmware for Raspberry-Pi-class boards.
import PackageDescription

/// A system-library target for a Debian C library, found through pkg-config.
func systemLibrary(_ name: String, pkgConfig: String?, apt: [String]) -> Target {
    .systemLibrary(name: name, path: "Sources/\(name)", pkgConfig: pkgConfig, providers: [.apt(apt)])
}

let package = Package(
    name: "Tripod",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "tripod", targets: ["tripod"]),
    ],
    targets: [
        // MARK: C side: Debian libraries and the libcamera shim.
        systemLibrary("CLibcamera", pkgConfig: "libcamera", apt: ["libcamera-dev"]),
        systemLibrary("CGPIOD", pkgConfig: "libgpiod", apt: ["libgpiod-dev"]),
        systemLibrary("CDRM", pkgConfig: "libdrm", apt: ["libdrm-dev"]),
        systemLibrary("CI2C", pkgConfig: nil, apt: ["libi2c-dev"]),
        // glibc's adjtimex (the clock's sync state, module Fleet).
        systemLibrary("CClock", pkgConfig: nil, apt: ["libc6-dev"]),
        // glibc's sync_file_range (the seam's startWriteback, module Syscalls).
        systemLibrary("CFileSync", pkgConfig: nil, apt: ["libc6-dev"]),
        systemLibrary("CV4L2", pkgConfig: nil, apt: ["linux-libc-dev"]),
        systemLibrary("CJPEG", pkgConfig: "libjpeg", apt: ["libjpeg62-turbo-dev"]),
        systemLibrary("CTIFF", pkgConfig: "libtiff-4", apt: ["libtiff-dev"]),
        systemLibrary("CSystemd", pkgConfig: "libsystemd", apt: ["libsystemd-dev"]),
        systemLibrary("CCrypto", pkgConfig: "libcrypto", apt: ["libssl-dev"]),
        systemLibrary("CFFmpeg", pkgConfig: "libavformat", apt: ["libavformat-dev", "libavcodec-dev", "libavutil-dev", "libswscale-dev"]),
        systemLibrary("CMosquitto", pkgConfig: "libmosquitto", apt: ["libmosquitto-dev"]),
        systemLibrary("CMicroHTTPD", pkgConfig: "libmicrohttpd", apt: ["libmicrohttpd-dev"]),
        // tripod collect's transfers (module Collect): libcurl, the OpenSSL flavour.
        systemLibrary("CCurl", pkgConfig: "libcurl", apt: ["libcurl4-openssl-dev"]),
        // Tests only: the viewfinder's reference images (libpng's simplified png_image API).
        systemLibrary("CPNG", pkgConfig: "libpng", apt: ["libpng-dev"]),
        // Typed, error-safe wrappers for what does not import into Swift (variadic TIFFSetField,
        // libjpeg's exit-on-error handler and macros).
        .target(name: "CTIFFShim", dependencies: ["CTIFF"]),
        .target(name: "CJPEGShim", dependencies: ["CJPEG"]),
        // FFmpeg's AVERROR/AV_NOPTS_VALUE macros and AVFrame's array fields, as functions.
        .target(name: "CFFmpegShim", dependencies: ["CFFmpeg"]),
        // libmicrohttpd's variadic MHD_start_daemon and info queries, with fixed arguments.
        .target(name: "CMicroHTTPDShim", dependencies: ["CMicroHTTPD"]),
        // libcurl's variadic curl_easy_setopt/getinfo and curl_multi_setopt, with typed arguments.
        .target(name: "CCurlShim", dependencies: ["CCurl"]),
        // gst-rtsp-server's GObject signals, variadic g_object_set and macros, behind fixed functions
        // (the live stream, module Stream). Its header needs no GStreamer one, so the include paths are
        // the shim's alone: Debian's, for amd64 and arm64 (pkg-config's -pthread is a flag SwiftPM
        // refuses with a warning; libgstrtspserver-1.0-dev, libgstreamer-plugins-base1.0-dev).
        .target(name: "CGstRTSPShim",
                cSettings: [.unsafeFlags(["-I/usr/include/gstreamer-1.0", "-I/usr/include/glib-2.0",
                                          "-I/usr/lib/x86_64-linux-gnu/glib-2.0/include", "-I/usr/lib/aarch64-linux-gnu/glib-2.0/include",
                                          "-pthread"])],
                linkerSettings: ["gstrtspserver-1.0", "gstapp-1.0", "gstbase-1.0", "gstreamer-1.0", "gobject-2.0", "glib-2.0"]
                    .map { .linkedLibrary($0) }),
        .target(
            name: "CCameraShim",
            dependencies: ["CLibcamera"]
        ),

        // MARK: Swift modules, by role.
        .target(name: "Hardware"),
        // The process's life: its version, why it cannot start, the work a stop waits for. Pure.
        .target(name: "Lifecycle"),
        // The one seam for system calls on descriptors (device nodes, serial ports, sockets):
        // the protocol, the real Glibc calls, and errno → HardwareError through the one mapping.
        .target(name: "Syscalls", dependencies: ["Hardware", "CFileSync"]),
        // The log: one line per event, to stderr or the journal, written through the syscall seam.
        .target(name: "Logging", dependencies: ["Syscalls"]),
        // Frame sync's datagrams over UDP multicast: the real channel, for the libcamera board's
        // alignment listener and the simulated camera's rigs alike.
        .target(name: "FrameSyncNetwork", dependencies: ["Hardware", "Syscalls"]),
        // The sensor database and board catalog: descriptions embedded in the binary, and the search
        // for board/ files. Data only, no backend.
        .target(name: "Boards", dependencies: ["Hardware", "Lifecycle"]),
        // The manual clock tests and benchmarks run the simulated board on; the firmware never links it.
        .target(name: "ManualLoop", dependencies: ["Hardware"]),
        // Optimised in debug builds too: it renders full-size frames in real time for tools/run and tests.
        .target(name: "SimulatedHardware", dependencies: ["Hardware", "FrameSyncNetwork", "Motion", "Boards"],
                swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        .target(name: "LinuxHardware", dependencies: [
            "Hardware", "Syscalls", "Motion", "CCameraShim", "CGPIOD", "CDRM", "CI2C", "CV4L2", "CSystemd",
        ]),
        .target(name: "Camera", dependencies: ["Hardware"]),
        // The shutter button and the status LED: debouncing, gestures, the busy gate, LED patterns.
        .target(name: "Controls", dependencies: ["Hardware"]),
        .target(name: "Motion", dependencies: ["Hardware"]),
        // Triggers beyond the button: motion in the picture (a luma thumbnail against a background
        // model), the actions' policy (cooldown, schedule, a triggered recording's end). Pure.
        // Optimised in debug builds too: motion detection looks at every streaming frame on the
        // loop (120 fps on the simulated board under tools/run, ten minutes of frames in a test).
        .target(name: "Triggers", dependencies: ["Hardware"],
                swiftSettings: [.unsafeFlags(["-O"], .when(configuration: .debug))]),
        .target(name: "Media", dependencies: ["Hardware", "CJPEG", "CTIFF", "CTIFFShim", "CJPEGShim", "CCrypto"]),
        // How values read as words (shutter durations, spans, numbers): shared by the console and the
        // domain's messages and summaries. Pure.
        .target(name: "Units"),
        .target(name: "Console", dependencies: ["Units"]),
        .target(name: "Viewfinder", dependencies: ["Hardware", "Logging", "Camera", "Motion"]),
        .target(name: "Stabilization", dependencies: ["Hardware", "Camera", "Motion", "Video"]),
        .target(name: "Video", dependencies: ["Hardware", "Motion", "CFFmpeg", "CFFmpegShim"]),
        // Captures: the bracket in progress, the frame writer's queue, gyro logs, bracket presets.
        .target(name: "Capture", dependencies: ["Hardware", "Lifecycle", "Logging", "Camera", "Units", "Media", "Motion", "Controls"]),
        // Recording: the video stream, the recording service and its stabilizer.
        .target(name: "Recording", dependencies: ["Hardware", "Lifecycle", "Camera", "Units", "Media", "Motion", "Stabilization", "Video"]),
        // The settings: one table of typed keys, the one commit path, the config file, persisted state.
        .target(name: "Settings", dependencies: ["Hardware", "Syscalls", "Console", "Camera", "Video", "Controls", "Capture", "Media", "Triggers"]),
        // The console transports: stdio, the serial port, the control socket, each client's writer and reader.
        .target(name: "Transports", dependencies: ["Hardware", "Lifecycle", "Syscalls", "Logging", "Console"]),
        // The fleet's link: MQTT through libmosquitto, the broker's lookup, the group's topics, the
        // inbox to the loop, the clock's sync state. Speaks no console words.
        .target(name: "Fleet", dependencies: ["Hardware", "CMosquitto", "CClock"]),
        // The fleet's console (docs/fleet.md), at the edge: the group's commands run as console lines,
        // state, status, events and replies published, shots across rigs; a console client of the
        // supervisor through ConsoleHost, never importing it.
        .target(name: "FleetConsole", dependencies: ["Fleet", "Hardware", "Logging", "Console", "Settings", "Transports"]),
        // The browser remote: the HTTP server (libmicrohttpd), its token, the API over the console's
        // operations, the MJPEG preview, the page. Serves a `RemoteHost` (the supervisor).
        .target(name: "Remote", dependencies: [
            "Hardware", "Syscalls", "Console", "Transports", "Settings", "Viewfinder", "Media", "CMicroHTTPD", "CMicroHTTPDShim",
        ]),
        // tripod collect (docs/collect.md): a fleet's shot onto one machine: discovery over MQTT,
        // transfers through libcurl, every file checked against its rig's SHA-256, the layouts, the journal.
        .target(name: "Collect", dependencies: ["Fleet", "Settings", "Media", "Remote", "Console", "LinuxHardware", "CCurl", "CCurlShim"]),
        // The live stream over RTSP (docs/stream.md): the encoder's packets into gst-rtsp-server.
        .target(name: "Stream", dependencies: ["Hardware", "Video", "CGstRTSPShim"]),
        // Composition and the dispatch of operations; knows no backend (the device graph comes from Startup).
        .target(name: "Supervisor", dependencies: [
            "Hardware", "Lifecycle", "Logging", "Camera", "Motion", "Media", "Console", "Viewfinder", "Stabilization", "Video",
            "Controls", "Capture", "Recording", "Settings", "Transports", "Remote", "Triggers", "Stream",
        ]),
        // The composition root: command line, board catalog → device graph (choosing backends), the
        // real loop, then the supervisor.
        .target(name: "Startup", dependencies: [
            "Supervisor", "Settings", "Lifecycle", "Logging", "FrameSyncNetwork", "Transports", "Fleet", "FleetConsole", "Collect", "Remote", "Boards", "Hardware", "SimulatedHardware", "LinuxHardware", "Camera", "Console", "Motion",
        ]),
        .executableTarget(name: "tripod", dependencies: ["Startup"]),
        // The console fuzz target: tools/fuzz-console builds it with -sanitize=fuzzer; built normally it
        // replays inputs (ConsoleFuzz FILE|DIR...).
        .executableTarget(name: "ConsoleFuzz", dependencies: ["Boards", "Startup", "Supervisor", "Syscalls", "Transports", "SimulatedHardware", "ManualLoop", "Console", "Hardware"]),
        // Declares every module it imports.
        .executableTarget(name: "tripod-bench", dependencies: [
            "Startup", "Supervisor", "Boards", "Camera", "Console", "Hardware", "LinuxHardware", "ManualLoop", "Media",
            "Motion", "SimulatedHardware", "TestSupport", "Video", "Viewfinder", "Settings", "Capture", "Recording",
            "Controls", "Transports", "Fleet", "FleetConsole", "Stabilization", "Triggers", "Stream", "Lifecycle", "Logging",
        ]),

        // MARK: Tests, one target per module plus end-to-end.
        .testTarget(name: "HardwareTests", dependencies: ["Hardware", "SimulatedHardware", "Boards"]),
        .testTarget(name: "SimulatedHardwareTests", dependencies: ["SimulatedHardware", "Boards", "ManualLoop", "FrameSyncNetwork", "TestSupport"]),
        .testTarget(name: "LinuxHardwareTests", dependencies: ["LinuxHardware", "Syscalls", "CV4L2", "Media", "SimulatedHardware", "ManualLoop", "TestSupport"]),
        .testTarget(name: "CameraTests", dependencies: ["Camera", "SimulatedHardware", "Boards", "ManualLoop", "TestSupport"]),
        .testTarget(name: "MotionTests", dependencies: ["Motion", "SimulatedHardware", "ManualLoop"]),
        .testTarget(name: "MediaTests", dependencies: ["Media", "SimulatedHardware", "ManualLoop"], exclude: ["Chart"]),
        .testTarget(name: "SettingsTests", dependencies: ["Settings", "Console", "Camera", "Controls", "Hardware", "LinuxHardware", "Supervisor", "TestSupport"]),
        .testTarget(name: "FleetTests", dependencies: ["Fleet"]),
        .testTarget(name: "FleetConsoleTests", dependencies: ["FleetConsole", "Fleet", "Settings", "Console", "Hardware", "LinuxHardware", "Transports",
                                                            "Supervisor", "Startup", "Syscalls", "TestSupport", "ManualLoop", "SimulatedHardware", "Media", "Video"]),
        .testTarget(name: "CollectTests", dependencies: ["Collect", "Fleet", "FleetConsole", "Settings", "Hardware", "Startup", "TestSupport", "Media", "Remote"]),
        .testTarget(name: "UnitsTests", dependencies: ["Units"]),
        .testTarget(name: "ConsoleTests", dependencies: ["Console", "SimulatedHardware"]),
        .testTarget(name: "ViewfinderTests", dependencies: ["Viewfinder", "CPNG", "TestSupport"], exclude: ["Reference"]),
        // Helpers shared by test targets and benchmarks (ffprobe and other tools, a storage with
        // injected faults, the simulated board's supervisor on the manual clock); never the firmware.
        .target(name: "TestSupport", dependencies: ["Hardware", "Lifecycle", "Logging", "Syscalls", "LinuxHardware", "Boards", "ManualLoop", "SimulatedHardware",
                                                   "Startup", "Supervisor", "Settings", "Transports", "Capture", "Media", "Console", "Fleet", "FleetConsole"],
                path: "Tests/TestSupport"),
        .testTarget(name: "RemoteTests", dependencies: ["Remote", "Settings", "Console", "Hardware", "Transports", "Syscalls", "TestSupport"],
                    exclude: ["Browser"]),
        .testTarget(name: "VideoTests", dependencies: ["Video", "LinuxHardware", "SimulatedHardware", "Motion", "ManualLoop", "TestSupport", "Boards"]),
        .testTarget(name: "TriggersTests", dependencies: ["Triggers", "Hardware", "Supervisor", "TestSupport"]),
        .testTarget(name: "StabilizationTests", dependencies: ["Stabilization", "SimulatedHardware", "Boards", "ManualLoop"]),
        .testTarget(name: "ControlsTests", dependencies: ["Controls", "Hardware", "Lifecycle", "SimulatedHardware", "ManualLoop", "Capture", "Console", "Settings",
                                                     "Supervisor", "TestSupport"]),
        .testTarget(name: "ManualLoopTests", dependencies: ["ManualLoop", "Hardware"]),
        .testTarget(name: "SyscallsTests", dependencies: ["Syscalls", "TestSupport"]),
        .testTarget(name: "BoardsTests", dependencies: ["Boards", "Hardware", "Lifecycle", "ManualLoop", "SimulatedHardware", "Startup", "Supervisor"]),
        .testTarget(name: "CaptureTests", dependencies: ["Capture", "Lifecycle", "Boards", "Camera", "Console", "Controls", "Hardware", "ManualLoop", "Media",
                                                    "Settings", "SimulatedHardware", "Supervisor", "TestSupport"]),
        .testTarget(name: "RecordingTests", dependencies: ["Recording", "Lifecycle", "Camera", "Console", "Hardware", "LinuxHardware", "ManualLoop", "Motion",
                                                      "SimulatedHardware", "Stabilization", "Startup", "Supervisor", "TestSupport", "Transports", "Video"]),
        .testTarget(name: "TransportsTests", dependencies: ["Transports", "Console", "Hardware", "Lifecycle", "Logging", "ManualLoop", "Supervisor", "Syscalls", "TestSupport"],
                    exclude: ["ConsolePTY"]),
        .testTarget(name: "StreamTests", dependencies: ["Stream", "Hardware", "Supervisor", "TestSupport"]),
        .testTarget(name: "StartupTests", dependencies: ["Startup", "Hardware", "Lifecycle", "Supervisor", "TestSupport"]),
        .testTarget(name: "SupervisorTests", dependencies: ["Supervisor", "Lifecycle", "Logging", "Startup", "Boards", "SimulatedHardware", "ManualLoop", "TestSupport",
                                                     "Settings", "Capture", "Controls", "Recording", "Stabilization", "Viewfinder", "Transports",
                                                     "Camera", "Console", "LinuxHardware", "Media", "Motion", "Video", "Triggers", "Stream"],
                    exclude: ["Transcripts"]),
    ],
    swiftLanguageModes: [.v6],
    cxxLanguageStandard: .cxx17
)
