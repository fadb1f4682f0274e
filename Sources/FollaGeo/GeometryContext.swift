import CGEOS

/// Owner of one GEOS context and factory of planar geometries (metres).
///
/// Thread safety: GEOS's reentrant API is safe only when a context is used by one thread
/// at a time. A `GeometryContext` and every `Geometry` it made must stay with their
/// owner (one per task, request or worker); the types are deliberately not `Sendable`,
/// so the compiler refuses to move them across isolation domains.
public final class GeometryContext {
    let handle: OpaquePointer
    private let errors: ErrorSink

    public init() {
        guard let handle = GEOS_init_r() else { fatalError("GEOS_init_r failed: out of memory") }
        self.handle = handle
        self.errors = ErrorSink()
        let sink = Unmanaged.passUnretained(errors).toOpaque()
        GEOSContext_setErrorMessageHandler_r(handle, { message, userdata in
            guard let message, let userdata else { return }
            Unmanaged<ErrorSink>.fromOpaque(userdata).takeUnretainedValue().last = String(cString: message)
        }, sink)
        GEOSContext_setNoticeMessageHandler_r(handle, { _, _ in }, nil)
    }

    deinit { GEOS_finish_r(handle) }

    /// Wraps a geometry returned by GEOS (which we now own), or reports GEOS's last error.
    func adopt(_ raw: OpaquePointer?, _ what: @autoclosure () -> String) throws(GeoError) -> Geometry {
        guard let raw else { throw .geos("\(what()): \(errors.take())") }
        return Geometry(context: self, raw: raw)
    }

    func lastError() -> String { errors.take() }

    public func point(_ p: PlanarPoint) throws(GeoError) -> Geometry {
        try adopt(GEOSGeom_createPointFromXY_r(handle, p.x, p.y), "point")
    }

    public func multiPoint(_ points: [PlanarPoint]) throws(GeoError) -> Geometry {
        var parts: [OpaquePointer?] = []
        parts.reserveCapacity(points.count)
        for p in points {
            guard let g = GEOSGeom_createPointFromXY_r(handle, p.x, p.y) else {
                for part in parts { GEOSGeom_destroy_r(handle, part) }
                throw .geos("point: \(errors.take())")
            }
            parts.append(g)
        }
        // GEOS takes ownership of the parts array's geometries, not of the array itself.
        let raw = parts.withUnsafeMutableBufferPointer { buffer in
            GEOSGeom_createCollection_r(handle, Int32(GEOS_MULTIPOINT.rawValue), buffer.baseAddress, UInt32(buffer.count))
        }
        return try adopt(raw, "multipoint")
    }

    /// A polygon from its exterior ring; the ring is closed for you if it is open.
    public func polygon(_ ring: [PlanarPoint]) throws(GeoError) -> Geometry {
        var closed = ring
        if let first = ring.first, ring.last != first { closed.append(first) }
        guard closed.count >= 4 else { throw .invalidGeometry("a polygon ring needs at least 3 distinct points") }
        guard let seq = GEOSCoordSeq_create_r(handle, UInt32(closed.count), 2) else {
            throw .geos("coordinate sequence: \(errors.take())")
        }
        for (i, p) in closed.enumerated() { GEOSCoordSeq_setXY_r(handle, seq, UInt32(i), p.x, p.y) }
        guard let shell = GEOSGeom_createLinearRing_r(handle, seq) else {
            throw .geos("linear ring: \(errors.take())")  // GEOS destroyed seq
        }
        return try adopt(GEOSGeom_createPolygon_r(handle, shell, nil, 0), "polygon")
    }

    /// Reads the X/Y pairs of a coordinate sequence owned by some geometry.
    func points(of seq: OpaquePointer) -> [PlanarPoint] {
        var size: UInt32 = 0
        GEOSCoordSeq_getSize_r(handle, seq, &size)
        var out: [PlanarPoint] = []
        out.reserveCapacity(Int(size))
        for i in 0..<size {
            var x = 0.0, y = 0.0
            GEOSCoordSeq_getXY_r(handle, seq, i, &x, &y)
            out.append(PlanarPoint(x: x, y: y))
        }
        return out
    }
}

/// Receives GEOS's error messages for one context (GEOS calls back on the caller's thread).
private final class ErrorSink {
    var last: String?
    func take() -> String {
        defer { last = nil }
        return last ?? "unknown GEOS error"
    }
}
