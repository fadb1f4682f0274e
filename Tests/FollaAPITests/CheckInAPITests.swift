import FollaTestSupport
import Foundation
import Hummingbird
import HummingbirdTesting
import Testing

@Suite struct CheckInAPITests {
    @Test func sameCheckInInEveryBodyFormat() async throws {
        try await AppFixture.run { f in
            let json = try await f.post("/v1/checkins", #"{"device_id":"\#(udidA)","lat":44.4938,"lon":11.343,"age":30,"sex":"male","message":"ciao"}"#)
            #expect(json.status == .ok)
            let a = try f.json(json)
            #expect(a["outcome"] as? String == "founded")
            let place = try #require(a["place"] as? [String: Any])
            #expect(place["people"] as? Int == 1)
            #expect((place["stats"] as? [String: Any])?["avg_age"] as? Double == 30)
            #expect(a["message_id"] as? Int != nil)

            // The original app's form, with its 1/2 sex codes.
            let form = try await f.post("/v1/checkins", "device_id=0123456789abcdef0002&lat=44.49381&lon=11.343&age=20&sex=2",
                                        contentType: "application/x-www-form-urlencoded")
            #expect(form.status == .ok)
            let b = try f.json(form)
            #expect(b["outcome"] as? String == "joined")
            #expect(((b["place"] as? [String: Any])?["stats"] as? [String: Any])?["female"] as? Int == 1)

            let xml = try await f.post("/v1/checkins", """
                <?xml version="1.0" encoding="UTF-8"?>
                <checkin><device_id>0123456789abcdef0003</device_id><lat>44.49382</lat><lon>11.343</lon><message>a &lt;b&gt; &amp; c</message></checkin>
                """, contentType: "application/xml")
            #expect(xml.status == .ok)
            let c = try f.json(xml)
            #expect((c["place"] as? [String: Any])?["people"] as? Int == 3)
            // Message ids say nothing of order (SQL/0023): the XML one is found by its text.
            let stored = try await f.db.query("SELECT count(*)::int FROM message WHERE body = 'a <b> & c'", logger: TestCluster.logger)
                .collect()[0].decode(Int.self)
            #expect(stored == 1)
        }
    }

    /// Each malformed input: a 4xx problem naming the field, and the database unchanged.
    @Test(arguments: [
        (#"{"lat":44.49,"lon":11.34}"#, "device_id"),
        (#"{"device_id":"short","lat":44.49,"lon":11.34}"#, "device_id"),
        (#"{"device_id":"0123456789abcdef01;DROP","lat":44.49,"lon":11.34}"#, "device_id"),
        (#"{"device_id":"0123456789abcdef0123","lon":11.34}"#, "lat"),
        (#"{"device_id":"0123456789abcdef0123","lat":"NaN","lon":11.34}"#, "lat"),
        (#"{"device_id":"0123456789abcdef0123","lat":90.0001,"lon":11.34}"#, "lat"),
        (#"{"device_id":"0123456789abcdef0123","lat":44,"lon":-180.5}"#, "lon"),
        (#"{"device_id":"0123456789abcdef0123","lat":44,"lon":1e400}"#, nil),
        (#"{"device_id":"0123456789abcdef0123","lat":44,"lon":"east"}"#, "lon"),
        (#"{"device_id":"0123456789abcdef0123","lat":[44],"lon":11}"#, "lat"),
        (#"{"device_id":"0123456789abcdef0123","lat":44,"lon":11,"age":12,"sex":"male"}"#, "age"),
        (#"{"device_id":"0123456789abcdef0123","lat":44,"lon":11,"age":30.5,"sex":"male"}"#, "age"),
        (#"{"device_id":"0123456789abcdef0123","lat":44,"lon":11,"age":30,"sex":"x"}"#, "sex"),
        (#"{"device_id":"0123456789abcdef0123","lat":44,"lon":11,"message":"   "}"#, "message"),
        (#"{"device_id":"0123456789abcdef0123","lat":44,"lon":11,"message":"bell\u0007"}"#, "message"),
        (#"{"device_id":"0123456789abcdef0123","lat":44,"lon":11,"accuracy_m":-1}"#, "accuracy_m"),
        (#"{"device_id":"0123456789abcdef0123","lat":44,"lon":11,"place_id":7}"#, "place_id"),
        (#"{"device_id":"0123456789abcdef0123","lat":44,"#, nil),
        (#"[1,2,3]"#, nil),
    ] as [(String, String?)])
    func badJSONIsRefusedAndChangesNothing(body: String, field: String?) async throws {
        try await AppFixture.run { f in
            let r = try await f.post("/v1/checkins", body)
            #expect(r.status == .badRequest, "\(body)")
            #expect(r.headers[.contentType] == "application/problem+json")
            let problem = try f.json(r)
            #expect(problem["status"] as? Int == 400)
            if let field {
                let params = problem["invalid_params"] as? [[String: Any]]
                #expect(params?.first?["name"] as? String == field, "\(body) → \(problem)")
            }
            #expect(try await f.rowCounts() == [0, 0, 0])
        }
    }

    @Test func overlongMessageIsRefused() async throws {
        try await AppFixture.run { f in
            let text = String(repeating: "é", count: 281)
            let r = try await f.post("/v1/checkins", #"{"device_id":"0123456789abcdef0123","lat":44,"lon":11,"message":"\#(text)"}"#)
            #expect(r.status == .badRequest)
            #expect(try f.json(r)["detail"] as? String == "message must be at most 280 characters (Unicode code points; got 281)")
            let ok = try await f.post("/v1/checkins", #"{"device_id":"0123456789abcdef0123","lat":44,"lon":11,"message":"\#(text.dropLast())"}"#)
            #expect(ok.status == .ok)
        }
    }

    @Test func transportLevelBadInput() async throws {
        try await AppFixture.run { f in
            // Invalid UTF-8 in JSON and in a form.
            var bytes = Array(#"{"device_id":"0123456789abcdef0123","lat":44,"lon":11,"message":""#.utf8)
            bytes += [0xC3, 0x28] + Array(#""}"#.utf8)
            #expect(try await f.post("/v1/checkins", bytes: bytes, contentType: "application/json").status == .badRequest)
            #expect(try await f.post("/v1/checkins", "device_id=0123456789abcdef0123&lat=44&lon=11&message=%C3%28",
                                     contentType: "application/x-www-form-urlencoded").status == .badRequest)
            // Repeated form field, nested or broken XML.
            #expect(try await f.post("/v1/checkins", "device_id=0123456789abcdef0123&lat=44&lat=45&lon=11",
                                     contentType: "application/x-www-form-urlencoded").status == .badRequest)
            #expect(try await f.post("/v1/checkins", "<checkin><lat><x>1</x></lat></checkin>", contentType: "application/xml").status == .badRequest)
            #expect(try await f.post("/v1/checkins", "<checkin><lat>1</lat>", contentType: "application/xml").status == .badRequest)
            // An external entity is not resolved.
            let xxe = """
                <?xml version="1.0"?><!DOCTYPE checkin [<!ENTITY x SYSTEM "file:///etc/passwd">]>
                <checkin><device_id>0123456789abcdef0123</device_id><lat>44</lat><lon>11</lon><message>&x;</message></checkin>
                """
            let xr = try await f.post("/v1/checkins", xxe, contentType: "application/xml")
            #expect(xr.status == .badRequest)
            #expect(try f.json(xr)["detail"] as? String == "document type declarations and entities are not accepted")
            // Oversized body and unsupported media types.
            let huge = #"{"device_id":"0123456789abcdef0123","lat":44,"lon":11,"pad":""# + String(repeating: "x", count: 100_000) + #""}"#
            #expect(try await f.post("/v1/checkins", huge).status == .contentTooLarge)
            #expect(try await f.post("/v1/checkins", "lat=1", contentType: "text/plain").status == .unsupportedMediaType)
            #expect(try await f.client.execute(uri: "/v1/checkins", method: .post, body: ByteBuffer(string: "{}")).status == .unsupportedMediaType)
            #expect(try await f.rowCounts() == [0, 0, 0])
        }
    }

    @Test func teleportIsA409AndChangesNothing() async throws {
        try await AppFixture.run { f in
            #expect(try await f.post("/v1/checkins", #"{"device_id":"\#(udidA)","lat":44.4938,"lon":11.343}"#).status == .ok)
            f.clock.advance(by: 10)
            let r = try await f.post("/v1/checkins", #"{"device_id":"\#(udidA)","lat":45.4642,"lon":9.19,"message":"from Milan"}"#)
            #expect(r.status == .conflict)
            // Neither speed nor distance: with someone's id, they would trilaterate them.
            let detail = try #require(try f.json(r)["detail"] as? String)
            #expect(detail.contains("not plausible") && !detail.contains(where: \.isNumber))
            #expect(try await f.rowCounts() == [1, 1, 0])
        }
    }

    @Test func checkOutByDeviceID() async throws {
        try await AppFixture.run { f in
            _ = try await f.post("/v1/checkins", #"{"device_id":"\#(udidA)","lat":44.4938,"lon":11.343}"#)
            // Case does not matter: the same UDID in capitals is the same device.
            let gone = try await f.client.execute(uri: "/v1/devices/\(udidA.uppercased())", method: .delete)
            #expect(gone.status == .noContent)
            #expect(try await f.rowCounts() == [0, 1, 0])
            #expect(try await f.client.execute(uri: "/v1/devices/\(udidA)", method: .delete).status == .notFound)
            let bad = try await f.client.execute(uri: "/v1/devices/not-a-device", method: .delete)
            #expect(bad.status == .badRequest)
        }
    }
}
