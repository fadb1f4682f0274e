// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "folla",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "folla", targets: ["folla"]),
        .executable(name: "folla-sim", targets: ["folla-sim"]),
        .library(name: "FollaAPI", targets: ["FollaAPI"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-extras.git", from: "1.35.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "3.12.3"),
        .package(url: "https://github.com/x-sheep/swift-property-based.git", from: "2.0.1"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/apple/swift-collections.git", from: "1.6.0"),
        .package(url: "https://github.com/swiftlang/swift-subprocess.git", from: "1.0.2"),
    ],
    targets: [
        // C libraries, through pkg-config. Debian: libgeos-dev, libproj-dev.
        .systemLibrary(name: "CGEOS", pkgConfig: "geos", providers: [.apt(["libgeos-dev"])]),
        .systemLibrary(name: "CPROJ", pkgConfig: "proj", providers: [.apt(["libproj-dev"])]),

        // Core: domain rules, no I/O, imports nothing of ours.
        .target(name: "FollaCore"),
        // SwiftNIO's event loops as task executors: the server and the simulator share it, and
        // the simulator needs nothing else of the server's modules.
        .target(name: "FollaLoops", dependencies: [.product(name: "NIOCore", package: "swift-nio")]),

        // Geo: PROJ geodesics and projections, GEOS geometry.
        .target(name: "FollaGeo", dependencies: ["FollaCore", "CGEOS", "CPROJ"]),

        // Store: PostgreSQL/PostGIS through PostgresNIO, migrations, embedded cluster.
        .target(
            name: "FollaStore",
            dependencies: [
                "FollaCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Metrics", package: "swift-metrics"),
            ],
            resources: [.copy("SQL")]
        ),

        // Services: the one write path (check-ins, messages, reports) and the read side
        // (groups, places, walls), all through the privacy policy of FollaCore.
        .target(
            name: "FollaServices",
            dependencies: [
                "FollaCore", "FollaGeo", "FollaStore",
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "HeapModule", package: "swift-collections"),
            ]
        ),

        // API: Hummingbird routes, codecs, problem details.
        .target(
            name: "FollaAPI",
            dependencies: [
                "FollaCore", "FollaGeo", "FollaLoops", "FollaStore", "FollaServices",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
                .product(name: "NIOHTTPTypesHTTP1", package: "swift-nio-extras"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ],
            resources: [.copy("Resources/openapi.yaml")]
        ),

        .executableTarget(
            name: "folla",
            dependencies: [
                "FollaAPI", "FollaServices", "FollaStore", "FollaCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),

        // Renders groups documents with JSONEncoder and with JSONWriter: the figure behind
        // keeping the hand-written writer on the hot answers (tools/bench/README.md).
        .executableTarget(
            name: "folla-codec-bench",
            dependencies: ["FollaAPI", "FollaCore"]
        ),

        // The load generator: population model, open-loop engine, measurement, verification.
        .target(
            name: "FollaSim",
            dependencies: [
                "FollaCore", "FollaGeo", "FollaLoops",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        .executableTarget(
            name: "folla-sim",
            dependencies: [
                "FollaSim",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),

        // One embedded PostGIS cluster per test run, one fresh database per test.
        .target(
            name: "FollaTestSupport",
            dependencies: [
                "FollaStore", "FollaCore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Subprocess", package: "swift-subprocess"),
            ],
            path: "Tests/FollaTestSupport"
        ),

        .testTarget(
            name: "FollaGeoTests",
            dependencies: [
                "FollaGeo",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "FollaSimTests",
            dependencies: [
                "FollaSim", "FollaGeo",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdTesting", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ]
        ),
        .testTarget(
            name: "FollaCoreTests",
            dependencies: ["FollaCore", .product(name: "PropertyBased", package: "swift-property-based")]
        ),
        .testTarget(
            name: "FollaStoreTests",
            dependencies: [
                "FollaStore", "FollaCore", "FollaGeo", "FollaTestSupport",
                .product(name: "PropertyBased", package: "swift-property-based"),
            ]
        ),
        .testTarget(
            name: "FollaAPITests",
            dependencies: [
                "FollaAPI", "FollaServices", "FollaStore", "FollaCore", "FollaGeo", "FollaLoops", "FollaTestSupport",
                .product(name: "HummingbirdTesting", package: "hummingbird"),
            ]
        ),
    ]
)
