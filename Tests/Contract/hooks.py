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

A form or XML body carries text only, and schemathesis writes a null there as an empty
field (`<accuracy_m></accuracy_m>`), and so an empty object or a string of control characters
it cannot write in XML: exactly the empty string those schemas allow ("an empty optional
field is the same as an absent one"). A negative case drawn so would reach the server as a
valid request, and its acceptance be reported as a failure (it was, in two runs). Such a
value is sent as the text "null" here, which the schemas refuse and the server must too.
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
    _explicit_nulls(case)


def _explicit_nulls(case):
    media = (getattr(case, "media_type", None) or "").split(";")[0].strip().lower()
    if media not in ("application/xml", "text/xml", "application/x-www-form-urlencoded") or not isinstance(case.body, dict):
        return
    for name, value in list(case.body.items()):
        if _written_empty(value, xml=media != "application/x-www-form-urlencoded"):
            case.body[name] = "null"


def _written_empty(value, xml):
    """Whether a value that is not the empty string goes on the wire as one (or as nothing)."""
    if value is None or (isinstance(value, (dict, list)) and not value):
        return True
    # Schemathesis drops the characters XML cannot carry (control characters but tab, CR, LF).
    if xml and isinstance(value, str) and value:
        return not any(c in "\t\n\r" or 0x20 <= ord(c) <= 0xD7FF or 0xE000 <= ord(c) <= 0xFFFD or 0x10000 <= ord(c) <= 0x10FFFF
                       for c in value)
    return False


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
