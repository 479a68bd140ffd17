// swift-tools-version:6.1
//
// Whereabouts: live positions of people and devices inside circles, over MQTT.
//
// Layers depend one way:
//   SystemSupport (Foundation and libc only: AtomicFile, FileStamp, LockedState, SplitMix64, FNV1a), beside
//   WhereaboutsCore (Foundation only: fixes, geodesy, filters, policies, wire format)
//     <- PositionSources, WhereaboutsMQTT (libmosquitto), Outbox (SQLite)
//       <- Publisher, Subscriber, Dashboard
//         <- the thin executables whereabouts-pub, whereabouts-sub, whereabouts-eval
import PackageDescription

let package = Package(
    name: "Whereabouts",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "whereabouts-pub", targets: ["whereabouts-pub"]),
        .executable(name: "whereabouts-sub", targets: ["whereabouts-sub"]),
        .executable(name: "whereabouts-eval", targets: ["whereabouts-eval"]),
        .library(name: "WhereaboutsCore", targets: ["WhereaboutsCore"]),
        .library(name: "WhereaboutsMQTT", targets: ["WhereaboutsMQTT"]),
        .library(name: "PositionSources", targets: ["PositionSources"]),
        .library(name: "PolicyOptions", targets: ["PolicyOptions"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", from: "7.0.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.5.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.0.0"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.0.0"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.80.0"),
        // bcrypt for the dashboard's accounts (Dashboard/Login/PasswordHashing.swift).
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth", from: "2.0.0"),
    ],
    targets: [
        // MARK: Policy core: Foundation only, so it could run inside an iOS app.
        .target(name: "WhereaboutsCore"),

        // MARK: What the modules share that is not the policy core: AtomicFile, LockedState,
        // SplitMix64 (Foundation only).
        .target(name: "SystemSupport"),
        // MARK: YAML files: a document tree read by Debian's libyaml (no Foundation), the nesting
        // bound, errors naming key and line, and the one place validator for the circles file and
        // the places file (YAML stays out of the core).
        // No pkgConfig here, in CSodium and in CSQLite: SwiftPM would put pkg-config's
        // -L/usr/lib/x86_64-linux-gnu before the publisher's StaticLibraries folder, whose linker
        // script takes SQLite from its archive (fieldDeviceLinkerSettings). The module map's link
        // line names the library; Debian installs it on the default search path.
        .systemLibrary(
            name: "CYAML",
            providers: [.apt(["libyaml-dev"])]
        ),
        .target(
            name: "WhereaboutsYAML",
            dependencies: ["CYAML", "WhereaboutsCore"]
        ),

        // MARK: Position sources: GPX, NMEA 0183, gpsd, simulator, replay.
        .target(
            name: "PositionSources",
            dependencies: [
                "SystemSupport",
                "WhereaboutsCore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: Transport: libmosquitto through a system-library target.
        .systemLibrary(
            name: "CMosquitto",
            pkgConfig: "libmosquitto",
            providers: [.apt(["libmosquitto-dev"])]
        ),
        .target(
            name: "WhereaboutsMQTT",
            dependencies: [
                "SystemSupport",
                "CMosquitto",
                "WhereaboutsCore",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: OwnTracks payload encryption: libsodium's secretbox through a system-library target.
        .systemLibrary(
            name: "CSodium",
            providers: [.apt(["libsodium-dev"])]
        ),
        .target(name: "OwnTracksCrypto", dependencies: ["CSodium", "SystemSupport"]),

        // glibc's <malloc.h> (mallopt), which the Glibc module does not export: the publisher
        // keeps to one malloc arena (Sources/whereabouts-pub/Entry.swift). Nothing to link.
        .systemLibrary(name: "CMalloc"),

        // MARK: Subscriber: circles file, ingest, circle views (issue 5).
        .target(
            name: "Subscriber",
            dependencies: [
                "SystemSupport",
                "OwnTracksCrypto",
                "WhereaboutsCore",
                "WhereaboutsMQTT",
                "WhereaboutsYAML",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                // The location history (History/HistoryStore.swift); GRDBSQLite for the writer's
                // raw sqlite3_bind_* calls (History/HistoryInsert.swift) and the Recorder API's
                // reads, which step SQLite statements directly (History/HistoryLocationRows.swift).
                "SQLiteSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "GRDBSQLite", package: "GRDB.swift"),
            ]
        ),

        // MARK: Provisioning: broker accounts (mosquitto ACL, dynamic security, NATS accounts, the
        // password folder) and invites (secrets, the OwnTracks app's configuration as a QR code),
        // for the whereabouts-sub commands acl, dynsec and invite, not the running subscriber
        // (issues 25, 26).
        .systemLibrary(name: "CQRencode", pkgConfig: "libqrencode", providers: [.apt(["libqrencode-dev"])]),
        .systemLibrary(name: "CPNG", pkgConfig: "libpng", providers: [.apt(["libpng-dev"])]),
        .target(
            name: "Provisioning",
            dependencies: [
                "SystemSupport",
                "CPNG", "CQRencode", "Subscriber", "WhereaboutsCore", "WhereaboutsMQTT", "WhereaboutsYAML",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: Web dashboard: HTTP API, WebSocket view pushes and the live map page.
        .target(
            name: "Dashboard",
            dependencies: [
                "SystemSupport",
                "Subscriber",
                "Provisioning",  // the invite dialog's route runs the invite command's code (Invite/)
                "WhereaboutsCore",
                "WhereaboutsYAML",  // the users file (Login/UsersFile.swift)
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                // The upgrade filter (Security/RefusedUpgradeFilter.swift) and pre-encoded frames.
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
            ],
            // The page, compiled into the binary so that it runs from anywhere (Page/PageAsset.swift).
            resources: [
                .embedInCode("Page/Assets/index.html"), .embedInCode("Page/Assets/dashboard.css"),
                .embedInCode("Page/Assets/display.js"), .embedInCode("Page/Assets/map.js"),
                .embedInCode("Page/Assets/members.js"), .embedInCode("Page/Assets/live.js"),
                .embedInCode("Page/Assets/login.html"), .embedInCode("Page/Assets/history.js"),
                .embedInCode("Page/Assets/invite.js"),
            ]
        ),
        .target(
            name: "DashboardOptions",
            dependencies: [
                "CommandLineDialect",
                "Dashboard",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: Policy flags shared by whereabouts-pub and whereabouts-eval; evaluation output.
        .target(
            name: "PolicyOptions",
            dependencies: [
                "CommandLineDialect",
                "WhereaboutsCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .target(name: "EvalKit", dependencies: ["WhereaboutsCore", "SystemSupport"]),

        // MARK: SQLiteSupport: what the SQLite-backed stores (outbox, history) share, on SQLite's
        // C API (Debian's libsqlite3) so that the publisher links no GRDB and no full Foundation.
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .target(name: "SQLiteSupport", dependencies: ["CSQLite", "SystemSupport"]),

        // MARK: Outbox: the publisher's durable FIFO of reports (SQLite's C API, SQLiteSupport).
        .target(
            name: "Outbox",
            dependencies: [
                "WhereaboutsCore", "SQLiteSupport",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: Publisher: source -> filters -> policy -> outbox -> MQTT, as lifecycle services.
        .target(
            name: "Publisher",
            dependencies: [
                "SystemSupport",
                "OwnTracksCrypto",
                "WhereaboutsCore",
                "PositionSources",
                "WhereaboutsMQTT",
                "Outbox",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "UnixSignals", package: "swift-service-lifecycle"),
                // The --places file (Places/PlacesFile.swift).
                "WhereaboutsYAML",
            ]
        ),

        // MARK: Command-line conventions shared by the executables.
        // The dialect all three programs speak (usage exit status, config keys, --log-level); no
        // transport and no YAML, so that whereabouts-eval links neither libmosquitto nor libyaml.
        .target(
            name: "CommandLineDialect",
            dependencies: [
                "WhereaboutsCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Broker flags and the config file reader, for whereabouts-pub and whereabouts-sub.
        .target(
            name: "CommandLineSupport",
            dependencies: [
                "SystemSupport",
                "CommandLineDialect",
                "WhereaboutsCore",
                "WhereaboutsMQTT",
                "WhereaboutsYAML",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: Executables.
        .executableTarget(
            name: "whereabouts-pub",
            dependencies: [
                "CommandLineDialect",
                "CommandLineSupport",
                "OwnTracksCrypto",
                "WhereaboutsCore",
                "WhereaboutsMQTT",
                "Publisher",
                "PolicyOptions",
                "CMalloc",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ],
            // The release link's symbol order and linker scripts (fieldDeviceLinkerSettings), not sources.
            exclude: ["whereabouts-pub.order", "StaticLibraries"],
            linkerSettings: fieldDeviceLinkerSettings
        ),
        .executableTarget(
            name: "whereabouts-sub",
            dependencies: [
                "SystemSupport",
                "CommandLineDialect",
                "CommandLineSupport",
                "WhereaboutsCore",
                "WhereaboutsMQTT",
                "Subscriber",
                "Provisioning",
                "Dashboard",
                "DashboardOptions",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .executableTarget(
            name: "whereabouts-eval",
            dependencies: [
                "CommandLineDialect",
                "WhereaboutsCore",
                "PositionSources",
                "PolicyOptions",
                "EvalKit",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),

        // MARK: Benchmarks (programs; build with -c release).
        .executableTarget(
            name: "PolicyBenchmark",
            dependencies: ["WhereaboutsCore", .product(name: "ArgumentParser", package: "swift-argument-parser")],
            path: "Benchmarks/PolicyBenchmark"
        ),
        .executableTarget(
            name: "SubscriberBenchmark",
            dependencies: [
                "Subscriber",
                "WhereaboutsCore",
                "WhereaboutsMQTT",
                "WhereaboutsTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/SubscriberBenchmark"
        ),

        .executableTarget(
            name: "LoadBenchmark",
            dependencies: [
                "SystemSupport",
                "WhereaboutsCore",
                "WhereaboutsMQTT",
                "WhereaboutsTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            path: "Benchmarks/LoadBenchmark"
        ),

        .executableTarget(
            name: "DashboardBenchmark",
            dependencies: [
                "WhereaboutsMQTT",
                "WhereaboutsTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/DashboardBenchmark"
        ),

        // MARK: Benchmarks (mqtt): the Swift client against a plain C libmosquitto loop.
        .target(
            name: "CMosquittoBaseline",
            dependencies: ["CMosquitto"],
            path: "Benchmarks/CMosquittoBaseline",
            linkerSettings: [.linkedLibrary("mosquitto")]
        ),
        .executableTarget(
            name: "MQTTPublishBenchmark",
            dependencies: [
                "CMosquittoBaseline",
                "WhereaboutsMQTT",
                "WhereaboutsTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/MQTTPublishBenchmark"
        ),
        .executableTarget(
            name: "RecorderBenchmark",
            dependencies: [
                "WhereaboutsTestSupport",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/RecorderBenchmark"
        ),
        .executableTarget(
            name: "SourcesBenchmark",
            dependencies: [
                "PositionSources",
                "WhereaboutsCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/SourcesBenchmark"
        ),

        .executableTarget(
            name: "PlaceDayBenchmark",
            dependencies: [
                "EvalKit", "PositionSources", "WhereaboutsCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/PlaceDayBenchmark"
        ),
        .executableTarget(
            name: "EncryptionBenchmark",
            dependencies: [
                "Subscriber", "OwnTracksCrypto",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            path: "Benchmarks/EncryptionBenchmark"
        ),

        // MARK: Tests.
        .testTarget(
            name: "WhereaboutsCoreTests",
            dependencies: ["EvalKit", "SystemSupport", "WhereaboutsCore"]
        ),
        .testTarget(
            name: "WhereaboutsYAMLTests",
            dependencies: ["WhereaboutsCore", "WhereaboutsYAML"]
        ),
        .testTarget(
            name: "SubscriberTests",
            dependencies: [
                "SystemSupport",
                "Subscriber",
                "Provisioning",  // the broker accounts of the access-control integration tests
                "OwnTracksCrypto",
                "WhereaboutsCore",
                "WhereaboutsMQTT",
                "WhereaboutsTestSupport",
                "PositionSources",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "ProvisioningTests",
            dependencies: [
                "Provisioning", "Subscriber", "WhereaboutsMQTT", "WhereaboutsTestSupport", "whereabouts-sub",
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "WhereaboutsEvalTests",
            dependencies: ["EvalKit", "PolicyOptions", "PositionSources", "WhereaboutsCore", "WhereaboutsTestSupport"]
        ),
        .testTarget(
            name: "PositionSourcesTests",
            dependencies: [
                "SystemSupport",
                "PositionSources",
                "WhereaboutsCore",
                "WhereaboutsTestSupport",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),

        // MARK: Test support (mqtt): real mosquitto brokers, throwaway certificates, paths, timeouts.
        .target(
            name: "WhereaboutsTestSupport",
            dependencies: [
                "SystemSupport",
                "WhereaboutsMQTT",
                "WhereaboutsCore",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ],
            path: "Tests/WhereaboutsTestSupport"
        ),
        .executableTarget(
            name: "mqtt-test-client",
            dependencies: [
                "WhereaboutsMQTT",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Tests/MQTTTestClient"
        ),
        .testTarget(
            name: "WhereaboutsMQTTTests",
            dependencies: [
                "SystemSupport",
                "WhereaboutsCore",
                "WhereaboutsMQTT",
                "WhereaboutsTestSupport",
                "mqtt-test-client",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "DashboardTests",
            dependencies: [
                "SystemSupport",
                "Dashboard",
                "Provisioning",
                "DashboardOptions",
                "Subscriber",
                "WhereaboutsCore",
                "WhereaboutsMQTT",
                "WhereaboutsTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
                .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            ]
        ),
        .testTarget(
            name: "OwnTracksCryptoTests",
            dependencies: ["OwnTracksCrypto", "WhereaboutsTestSupport"]
        ),
        .testTarget(
            name: "OutboxTests",
            dependencies: [
                "Outbox", "WhereaboutsCore", "WhereaboutsTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // The shipped NATS JetStream cluster (broker/nats) against what Whereabouts relies on.
        .testTarget(
            name: "ClusterTests",
            dependencies: [
                "SystemSupport",
                "WhereaboutsCore", "WhereaboutsMQTT", "WhereaboutsTestSupport", "whereabouts-pub", "whereabouts-sub",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "InMemoryLogging", package: "swift-log"),
            ]
        ),
        .testTarget(
            name: "PublisherTests",
            dependencies: [
                "CommandLineDialect", "CommandLineSupport", "Publisher", "Outbox", "OwnTracksCrypto", "SystemSupport", "WhereaboutsCore", "WhereaboutsMQTT",
                "WhereaboutsTestSupport", "whereabouts-pub", "whereabouts-eval",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),

        // MARK: Fuzzing: libFuzzer harnesses for every decoder of outside input (docs/fuzzing.md).
        // scripts/fuzz builds whereabouts-fuzz with -sanitize=fuzzer,address -DFUZZING in .build-fuzz;
        // a normal build makes it a command that replays Fuzz/Corpus, which FuzzCorpusTests runs.
        .target(
            name: "FuzzHarnesses",
            dependencies: [
                "CommandLineDialect", "CommandLineSupport", "Subscriber", "PositionSources", "Publisher", "WhereaboutsCore",
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Fuzz/FuzzHarnesses"
        ),
        .executableTarget(
            name: "whereabouts-fuzz",
            dependencies: ["FuzzHarnesses"],
            path: "Fuzz/whereabouts-fuzz"
        ),
        .testTarget(
            name: "FuzzCorpusTests",
            dependencies: ["FuzzHarnesses"]
        ),

        // MARK: Benchmarks (programs, not timed tests).
        .executableTarget(
            name: "PublisherBenchmark",
            dependencies: [
                "Outbox", "Publisher", "WhereaboutsCore", "CMosquittoBaseline", "WhereaboutsTestSupport", "WhereaboutsMQTT",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
            ],
            path: "Benchmarks/PublisherBenchmark"
        ),
    ]
)

// The publisher runs unattended on small field devices, where resident memory is the budget
// (issue 4: under 30 MB). A release build of it links the Swift runtime and Foundation statically
// (no dynamic loading and relocation of eight Swift libraries at start, and only the parts it
// uses), with lld packing its relative relocations (DT_RELR, glibc 2.36+) and folding identical
// code. Measured in BENCHMARKS.md ("Resident memory while running"). Debug builds stay dynamic.
var fieldDeviceLinkerSettings: [LinkerSetting] {
    [
        .unsafeFlags(
            [
                "-static-stdlib",
                // libstdc++, SQLite, libyaml, libsodium and libgcc's unwinder from their archives (the linker
                // scripts in StaticLibraries): only the functions used, in the order file's order, not whole
                // shared libraries.
                "-L\(Context.packageDirectory)/Sources/whereabouts-pub/StaticLibraries",
                // FoundationEssentials' own static dependencies, which swiftc adds only when the
                // modules were compiled for a static stdlib (SwiftPM's --static-swift-stdlib). No
                // module of the publisher imports full Foundation, so CoreFoundation, ICU and
                // FoundationInternationalization are not named.
                "-l_FoundationCShims", "-l_FoundationCollections",
                "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--icf=all",
                // No dynamic symbol table of every Swift symbol (SwiftPM exports them for testable
                // executables; the device's binary is never tested by linking it): 1.2 MB of
                // .dynsym/.dynstr/.gnu.hash less in the file, and in resident memory (BENCHMARKS.md).
                "-Xlinker", "--no-export-dynamic",
                // The functions a running publisher executes first and together (a generated
                // profile, scripts/publisher-order-file): the kernel maps code 64 KB around each
                // fault, so scattered code is resident far beyond its size (docs/publisher.md).
                "-Xlinker", "--symbol-ordering-file=\(Context.packageDirectory)/Sources/whereabouts-pub/whereabouts-pub.order",
                "-Xlinker", "--no-warn-symbol-ordering",
            ],
            .when(platforms: [.linux], configuration: .release)
        )
    ]
}
