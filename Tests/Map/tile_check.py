"""Decodes a Folla vector tile with an independent decoder (mapbox-vector-tile, PyPI) and
compares it with the GeoJSON answer for the same box and zoom.

usage: tile_check.py TILE.mvt ANSWER.geojson Z X Y
Exits 0 when every feature of the GeoJSON answer is in the tile's `groups` layer with the
same people, cluster id, place id and expansion zoom, at the same position to within one
tile unit (1/4096 of the tile), and nothing else is; prints what differs otherwise.
"""
import json
import math
import sys

import mapbox_vector_tile


def tile_position(lon, lat, z, x, y, extent=4096):
    n = 2 ** z
    fx = (lon + 180) / 360 * n
    s = math.sin(math.radians(lat))
    fy = (0.5 - math.log((1 + s) / (1 - s)) / (4 * math.pi)) * n
    # mapbox-vector-tile flips y by default: 0 at the bottom of the tile.
    return (fx - x) * extent, (1 - (fy - y)) * extent


def main():
    tile_path, answer_path, z, x, y = sys.argv[1], sys.argv[2], *map(int, sys.argv[3:6])
    layers = mapbox_vector_tile.decode(open(tile_path, "rb").read())
    answer = json.load(open(answer_path))
    tile_features = layers.get("groups", {}).get("features", [])
    problems = []
    expected = []
    for f in answer["features"]:
        lon, lat = f["geometry"]["coordinates"]
        px, py = tile_position(lon, lat, z, x, y)
        if -64 <= px <= 4096 + 64 and -64 <= py <= 4096 + 64:
            expected.append((f["properties"], px, py))
    if len(expected) != len(tile_features):
        problems.append(f"{len(tile_features)} features in the tile, {len(expected)} in the answer's box")
    unmatched = list(tile_features)
    for props, px, py in expected:
        match = None
        for t in unmatched:
            tp = t["properties"]
            same = (tp.get("people") == props["people"] and tp.get("cluster_id") == props["cluster_id"]
                    and tp.get("place_id") == props["place_id"] and tp.get("expansion_zoom") == props["expansion_zoom"]
                    and tp.get("places") == props["point_count"] and tp.get("cluster") == props["cluster"])
            tx, ty = t["geometry"]["coordinates"]
            if same and abs(tx - px) <= 1.01 and abs(ty - py) <= 1.01:
                match = t
                break
        if match is None:
            problems.append(f"not in the tile: {props} at {px:.1f},{py:.1f}")
        else:
            unmatched.remove(match)
    for t in unmatched:
        problems.append(f"only in the tile: {t}")
    if problems:
        print("\n".join(problems))
        return 1
    print(f"{len(expected)} features agree; layers: {sorted(layers)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
