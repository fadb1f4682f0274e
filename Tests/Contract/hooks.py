"""Schemathesis hooks for Folla's contract run (SCHEMATHESIS_HOOKS=hooks).

An Idempotency-Key names one request: the API answers 422 when a key comes back with a
different request, as the IETF draft says it should. Schemathesis draws keys from the
pattern and draws the same short ones ("0", "!") again and again for different requests,
which would turn every such repeat into a 422 that is the contract working, not failing.
So a valid key is made unique per call here; an invalid one is left alone, so the negative
cases of the header still reach the server.

A viewport's bbox must have its south edge south of its north edge (the server says so with
a 400, as it should); JSON Schema cannot compare two numbers of one string, so a generated
bbox of four numbers gets its latitudes in order here. Inverted ones are tested in
MapAPITests.
"""
import re
import uuid

import schemathesis

_VALID_KEY = re.compile(r"^[!-~]{1,255}$")


@schemathesis.hook
def before_call(context, case, kwargs):
    headers = case.headers or {}
    for name in list(headers):
        if name.lower() == "idempotency-key" and isinstance(headers[name], str) and _VALID_KEY.match(headers[name]):
            headers[name] = str(uuid.uuid4())
    _ordered_bbox(case.query)


def _ordered_bbox(query):
    bbox = query.get("bbox") if isinstance(query, dict) else None
    if not isinstance(bbox, str):
        return
    parts = bbox.split(",")
    if len(parts) != 4:
        return
    try:
        south, north = float(parts[1]), float(parts[3])
    except ValueError:
        return
    if south > north:
        parts[1], parts[3] = parts[3], parts[1]
        query["bbox"] = ",".join(parts)
