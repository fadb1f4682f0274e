import CPROJ

/// An azimuthal equidistant plane centred on a point, through PROJ.
///
/// Within a few kilometres of its centre the plane is metric to well under a millimetre
/// per metre, so GEOS (which is planar) can measure areas and hulls of crowds in metres.
///
/// Thread safety: PROJ objects and contexts may not be shared between threads. Each
/// `LocalProjection` owns its own `PJ_CONTEXT`; give every task or thread its own
/// projection instead of sharing one. The type is deliberately not `Sendable`.
public final class LocalProjection {
    public let centre: Coordinate
    private let context: OpaquePointer
    private let transform: OpaquePointer

    public init(centre: Coordinate) throws(GeoError) {
        guard centre.isValid else { throw .invalidCoordinate(centre) }
        guard let ctx = proj_context_create() else { throw .proj("cannot create a PROJ context") }
        // A pipeline, not crs_to_crs: no proj.db look-up (that was most of the cost of a
        // request that clusters), degrees in, metres out, on the WGS84 ellipsoid; the same
        // math as PostGIS ST_Transform to "+proj=aeqd … +datum=WGS84".
        let definition = "+proj=pipeline +step +proj=unitconvert +xy_in=deg +xy_out=rad "
            + "+step +proj=aeqd +lat_0=\(centre.latitude) +lon_0=\(centre.longitude) +ellps=WGS84 +units=m"
        guard let normalized = proj_create(ctx, definition) else {
            let message = Self.lastError(ctx)
            proj_context_destroy(ctx)
            throw .proj("cannot create the projection: \(message)")
        }
        self.centre = centre
        self.context = ctx
        self.transform = normalized
    }

    deinit {
        proj_destroy(transform)
        proj_context_destroy(context)
    }

    /// Geographic → metres east/north of the centre.
    public func forward(_ c: Coordinate) throws(GeoError) -> PlanarPoint {
        let out = proj_trans(transform, PJ_FWD, proj_coord(c.longitude, c.latitude, 0, 0))
        guard out.xy.x.isFinite, out.xy.y.isFinite else {
            throw .proj("cannot project \(c): \(Self.lastError(context))")
        }
        return PlanarPoint(x: out.xy.x, y: out.xy.y)
    }

    /// Metres east/north of the centre → geographic.
    public func inverse(_ p: PlanarPoint) throws(GeoError) -> Coordinate {
        let out = proj_trans(transform, PJ_INV, proj_coord(p.x, p.y, 0, 0))
        guard out.xy.x.isFinite, out.xy.y.isFinite else {
            throw .proj("cannot unproject (\(p.x), \(p.y)): \(Self.lastError(context))")
        }
        return Coordinate(latitude: out.xy.y, longitude: out.xy.x)
    }

    private static func lastError(_ ctx: OpaquePointer) -> String {
        let code = proj_context_errno(ctx)
        guard code != 0, let text = proj_context_errno_string(ctx, code) else { return "unknown PROJ error" }
        return String(cString: text)
    }
}
