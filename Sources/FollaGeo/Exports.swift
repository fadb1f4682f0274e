// The position types are domain types (FollaCore); the geometry layer computes on them.
@_exported import struct FollaCore.Coordinate
@_exported import struct FollaCore.PlanarPoint
