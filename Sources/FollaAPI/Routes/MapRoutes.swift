import FollaCore
import FollaServices
import Hummingbird

/// Map clients: the clusters of a viewport (`GET /v1/groups?bbox=…&zoom=…`, registered by
/// `GroupRoutes` on the same path) and a cluster's children
/// (`GET /v1/clusters/{id}/children`, supercluster's getChildren and
/// getClusterExpansionZoom in one answer).
struct MapRoutes {
    let deps: AppDependencies

    func register(on groups: RouteGroups) {
        groups.open.get("clusters/:cluster_id/children") { request, context in
            let fields = try request.queryFields()
            try fields.rejectUnknown(allowed: ["format"])
            let format = try ResponseFormat.negotiate(request, fields: fields)
            let id = try context.positiveID("cluster_id")
            guard let (children, expansion) = try await deps.map.children(of: id) else {
                throw Problem.notFound("no cluster \(id) on the map now (clusters change as people move: reload the viewport)")
            }
            let ring = children.map(\.position)
            let bbox = ring.isEmpty ? [] : [ring.map(\.longitude).min()!, ring.map(\.latitude).min()!,
                                             ring.map(\.longitude).max()!, ring.map(\.latitude).max()!].map(MapCodecs.round)
            let doc = MapCodecs.Document(bbox: bbox, zoom: id.zoomOfCluster + 1, clusters: children,
                                         parent: (id, expansion))
            return Self.render(doc, format)
        }
        // Held: a tile is cached for a second, and a cached one answered in 1-2 ms against
        // 2-7 ms fresh, which told a poller whether anyone had viewed that tile meanwhile (a
        // map client at zoom 18 views its own street).
        Self.registerTiles(on: groups.heldQueryFree, deps: deps)
    }

    /// `GET /v1/tiles/{z}/{x}/{y}.mvt`: the same clusters as a Mapbox Vector Tile, with an
    /// ETag and a max-age of the read model's staleness bound, so a CDN may hold it that long.
    static func registerTiles(on group: RouterGroup<FollaRequestContext>, deps: AppDependencies) {
        group.get("tiles/:z/:x/{y}.mvt") { request, context in
            try ResponseFormat.requireAccepted(request, MapCodecs.tileMediaType)
            func coordinate(_ name: String) throws -> Int {
                guard let v = Int(try context.pathParameter(name)) else {
                    throw FieldError(name, "must be a whole number")
                }
                return v
            }
            let (z, x, y) = (try coordinate("z"), try coordinate("x"), try coordinate("y"))
            // Past the edge of the world at this zoom: no such tile (the URL is well formed).
            guard (0...22).contains(z) else { throw FieldError("z", "must be between 0 and 22") }
            guard x >= 0 else { throw FieldError("x", "must not be negative") }
            guard y >= 0 else { throw FieldError("y", "must not be negative") }
            guard (0..<(1 << z)).contains(x), (0..<(1 << z)).contains(y) else {
                throw Problem.notFound("no tile \(z)/\(x)/\(y): x and y run from 0 to \((1 << z) - 1) at zoom \(z)")
            }
            let tile = try Tile(z: z, x: x, y: y)
            let bytes = try await deps.map.tile(tile)
            let tag = ConditionalGET.etag(bytes)
            var headers: HTTPFields = [.eTag: tag, .cacheControl: "public, max-age=\(deps.mapMaxAge)",
                                       .contentType: MapCodecs.tileMediaType]
            if let inm = request.headers[.ifNoneMatch], ConditionalGET.matches(inm, tag) {
                headers[.contentType] = nil
                return Response(status: .notModified, headers: headers)
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: bytes))
        }
    }

    /// The viewport answer: called by `GroupRoutes` when the query has `bbox` or `zoom`.
    static func viewport(_ fields: Fields, format: ResponseFormat, deps: AppDependencies) async throws -> Response {
        let viewport = try Viewport(parameters: fields)
        let clusters: [MapCluster]
        do {
            clusters = try await deps.map.clusters(in: viewport).filter { viewport.admits(people: $0.people) }
        } catch MapError.tooMany(let n) {
            throw FieldError("bbox", "holds \(n) clusters at zoom \(viewport.zoom), more than \(MapService.maxClusters): zoom out or narrow the box")
        }
        let doc = MapCodecs.Document(bbox: [viewport.minLongitude, viewport.minLatitude, viewport.maxLongitude, viewport.maxLatitude],
                                     zoom: viewport.zoom, clusters: clusters)
        return render(doc, format)
    }

    static func render(_ doc: MapCodecs.Document, _ format: ResponseFormat) -> Response {
        let body: String
        switch format {
        case .json: body = MapCodecs.json(doc)
        case .xml: body = MapCodecs.xml(doc)
        case .geojson, .atom: body = MapCodecs.geoJSON(doc)  // atom is never offered here
        }
        return Response(status: .ok, headers: [.contentType: format.mediaType, .cacheControl: "no-store", .vary: "Accept"],
                        body: .init(byteBuffer: ByteBuffer(string: body)))
    }
}

extension Int64 {
    /// The zoom a cluster id names (its low five bits).
    var zoomOfCluster: Int { Int(self % 32) }
}
