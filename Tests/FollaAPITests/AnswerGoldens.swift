/// The answers as the hand-written writers produced them before the answer types existed
/// (captured from the previous code, for `AnswerFixtures`' values), byte for byte. JSON
/// answers are compared by content (`JSONValue`): the one encoder writes `200` where the
/// writer wrote `200.0`, and sorts every key. XML answers are compared byte for byte.
enum AnswerGoldens {
    static let groupsDocument = #"{"centre":{"lat":44.4938,"lon":11.343},"count":3,"groups":[{"bearing_deg":45.5,"coarsened":false,"distance_m":12.346,"hull":[[11.34,44.49],[11.35,44.49],[11.35,44.4912346],[11.34,44.49]],"id":7,"last_activity":"2026-11-22T21:05:00Z","lat":44.4938123,"lon":11.3430457,"message_count":2,"messages":[{"created_at":"2026-11-22T21:05:00Z","id":41,"place_id":7,"text":"ciao a/b \"tutti\" \\ è 😀\n\ttab"},{"created_at":"2026-11-22T21:04:00Z","id":40,"place_id":null,"text":"<b>&amp;</b>\u0001"}],"people":5,"place_ids":[7,9],"stats":{"avg_age":27.0,"female":1,"male":2,"reported":3}},{"bearing_deg":0.0,"coarsened":true,"distance_m":150.0,"hull":null,"id":null,"last_activity":"2026-11-22T21:03:00Z","lat":44.494,"lon":11.344,"message_count":0,"messages":[],"people":2,"place_ids":[],"stats":null},{"bearing_deg":180.0,"coarsened":false,"distance_m":1000.25,"hull":null,"id":12,"last_activity":"2026-11-22T21:05:00Z","lat":44.5,"lon":11.3,"message_count":1,"messages":[],"people":4,"place_ids":[12],"stats":{"avg_age":null,"female":0,"male":0,"reported":4}}],"radius_m":200.0}"#
    static let group = #"{"bearing_deg":45.5,"coarsened":false,"distance_m":12.346,"hull":[[11.34,44.49],[11.35,44.49],[11.35,44.4912346],[11.34,44.49]],"id":7,"last_activity":"2026-11-22T21:05:00Z","lat":44.4938123,"lon":11.3430457,"message_count":2,"messages":[{"created_at":"2026-11-22T21:05:00Z","id":41,"place_id":7,"text":"ciao a/b \"tutti\" \\ è 😀\n\ttab"},{"created_at":"2026-11-22T21:04:00Z","id":40,"place_id":null,"text":"<b>&amp;</b>\u0001"}],"people":5,"place_ids":[7,9],"stats":{"avg_age":27.0,"female":1,"male":2,"reported":3}}"#
    static let featureCollection = #"{"features":[{"geometry":{"coordinates":[11.3430457,44.4938123],"type":"Point"},"id":"group-7","properties":{"bearing_deg":45.5,"coarsened":false,"distance_m":12.346,"id":7,"last_activity":"2026-11-22T21:05:00Z","lat":44.4938123,"lon":11.3430457,"message_count":2,"messages":[{"created_at":"2026-11-22T21:05:00Z","id":41,"place_id":7,"text":"ciao a/b \"tutti\" \\ è 😀\n\ttab"},{"created_at":"2026-11-22T21:04:00Z","id":40,"place_id":null,"text":"<b>&amp;</b>\u0001"}],"people":5,"place_ids":[7,9],"stats":{"avg_age":27.0,"female":1,"male":2,"reported":3}},"type":"Feature"},{"geometry":{"coordinates":[[[11.34,44.49],[11.35,44.49],[11.35,44.4912346],[11.34,44.49]]],"type":"Polygon"},"id":"hull-group-7","properties":{"group_id":7,"kind":"hull"},"type":"Feature"},{"geometry":{"coordinates":[11.344,44.494],"type":"Point"},"id":"cell-1","properties":{"bearing_deg":0.0,"coarsened":true,"distance_m":150.0,"id":null,"last_activity":"2026-11-22T21:03:00Z","lat":44.494,"lon":11.344,"message_count":0,"messages":[],"people":2,"place_ids":[],"stats":null},"type":"Feature"},{"geometry":{"coordinates":[11.3,44.5],"type":"Point"},"id":"group-12","properties":{"bearing_deg":180.0,"coarsened":false,"distance_m":1000.25,"id":12,"last_activity":"2026-11-22T21:05:00Z","lat":44.5,"lon":11.3,"message_count":1,"messages":[],"people":4,"place_ids":[12],"stats":{"avg_age":null,"female":0,"male":0,"reported":4}},"type":"Feature"}],"type":"FeatureCollection"}"#
    static let checkIn = #"{"checked_in_at":"2026-11-22T21:05:00Z","counted":true,"message_id":41}"#
    static let checkInWithoutMessage = #"{"checked_in_at":"2026-11-22T21:05:00Z","counted":false,"message_id":null}"#
    static let checkInOriginal = #"{"checked_in_at":"2026-11-22T21:05:00Z","counted":true,"distance_m":3.14,"message_id":41,"outcome":"joined","place":{"coarsened":false,"id":7,"lat":44.4938,"lon":11.343,"people":5,"stats":{"avg_age":27.0,"female":1,"male":2,"reported":3}},"previous_place_id":null}"#
    static let checkInOriginalMoved = #"{"checked_in_at":"2026-11-22T21:05:00Z","counted":true,"distance_m":3.14,"message_id":41,"outcome":"joined","place":{"coarsened":false,"id":7,"lat":44.4938,"lon":11.343,"people":1,"stats":{"avg_age":null,"female":0,"male":0,"reported":0}},"previous_place_id":3}"#
    static let wall = #"{"busiest":[{"coarsened":false,"lat":44.4938123,"lon":11.343,"people":5,"place_id":7,"stats":{"avg_age":27.0,"female":1,"male":2,"reported":3}},{"coarsened":true,"lat":44.494,"lon":11.344,"people":2,"place_id":null,"stats":null}],"messages":[{"created_at":"2026-11-22T21:05:00Z","id":41,"place_id":7,"text":"ciao a/b \"tutti\" \\ è 😀\n\ttab"},{"created_at":"2026-11-22T21:04:00Z","id":40,"place_id":null,"text":"<b>&amp;</b>\u0001"}],"people":7,"places":2,"stats":{"avg_age":27.0,"female":1,"male":2,"reported":3},"title":"Piazza \"Maggiore\" & co","updated_at":"2026-11-22T21:05:00Z"}"#
    static let message = #"{"created_at":"2026-11-22T21:05:00Z","id":41,"place_id":7,"text":"ciao a/b \"tutti\" \\ è 😀\n\ttab"}"#
    static let smallGroupMessage = #"{"created_at":"2026-11-22T21:04:00Z","id":40,"place_id":null,"text":"<b>&amp;</b>\u0001"}"#
    static let page = #"{"messages":[{"created_at":"2026-11-22T21:05:00Z","id":41,"place_id":7,"text":"ciao a/b \"tutti\" \\ è 😀\n\ttab"},{"created_at":"2026-11-22T21:04:00Z","id":40,"place_id":null,"text":"<b>&amp;</b>\u0001"}],"next_before":40}"#
    static let lastPage = #"{"messages":[{"created_at":"2026-11-22T21:05:00Z","id":41,"place_id":7,"text":"ciao a/b \"tutti\" \\ è 😀\n\ttab"},{"created_at":"2026-11-22T21:04:00Z","id":40,"place_id":null,"text":"<b>&amp;</b>\u0001"}],"next_before":null}"#
    static let emptyPage = #"{"messages":[],"next_before":null}"#
    static let venue = #"{"area":{"coordinates":[[[11.34,44.49],[11.35,44.49],[11.35,44.4912345678],[11.34,44.49]]],"type":"Polygon"},"name":"Piazza \"Maggiore\"","slug":"piazza","wall":"/wall/piazza"}"#
    static let problem = #"{"type":"/problems/invalid-field","title":"Invalid request field","status":400,"detail":"lat must be a number \"x\"","invalid_params":[{"name":"lat","reason":"lat must be a number \"x\""}]}"#
    static let problemWithoutField = #"{"type":"/problems/not-found","title":"Not found","status":404,"detail":"no venue a/b"}"#
    static let checkInWithGroups = #"{"checked_in_at":"2026-11-22T21:05:00Z","counted":true,"message_id":41,"groups":[{"bearing_deg":45.5,"coarsened":false,"distance_m":12.346,"hull":[[11.34,44.49],[11.35,44.49],[11.35,44.4912346],[11.34,44.49]],"id":7,"last_activity":"2026-11-22T21:05:00Z","lat":44.4938123,"lon":11.3430457,"message_count":2,"messages":[{"created_at":"2026-11-22T21:05:00Z","id":41,"place_id":7,"text":"ciao a/b \"tutti\" \\ è 😀\n\ttab"},{"created_at":"2026-11-22T21:04:00Z","id":40,"place_id":null,"text":"<b>&amp;</b>\u0001"}],"people":5,"place_ids":[7,9],"stats":{"avg_age":27.0,"female":1,"male":2,"reported":3}},{"bearing_deg":0.0,"coarsened":true,"distance_m":150.0,"hull":null,"id":null,"last_activity":"2026-11-22T21:03:00Z","lat":44.494,"lon":11.344,"message_count":0,"messages":[],"people":2,"place_ids":[],"stats":null}]}"#
    static let checkInGroupsFailed = #"{"checked_in_at":"2026-11-22T21:05:00Z","counted":true,"message_id":41,"groups":null}"#

    // XML: groups, one place, the wall and its Atom feed; the legacy query_to_xml tables.
    static let groupsXML = #"<?xml version="1.0" encoding="UTF-8"?>\#n<groups xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" count="3" lat="44.4938" lon="11.343" radius_m="200.0"><group id="7"><lat>44.4938123</lat><lon>11.3430457</lon><coarsened>false</coarsened><distance_m>12.346</distance_m><bearing_deg>45.5</bearing_deg><people>5</people><stats><reported>3</reported><avg_age>27.0</avg_age><male>2</male><female>1</female></stats><last_activity>2026-11-22T21:05:00Z</last_activity><message_count>2</message_count><messages><message id="41" place_id="7"><text>ciao a/b &quot;tutti&quot; \ è 😀\#n\#ttab</text><created_at>2026-11-22T21:05:00Z</created_at></message><message id="40"><text>&lt;b&gt;&amp;amp;&lt;/b&gt;</text><created_at>2026-11-22T21:04:00Z</created_at></message></messages><place_ids><place_id>7</place_id><place_id>9</place_id></place_ids><hull><point lon="11.34" lat="44.49"/><point lon="11.35" lat="44.49"/><point lon="11.35" lat="44.4912346"/><point lon="11.34" lat="44.49"/></hull></group><group><lat>44.494</lat><lon>11.344</lon><coarsened>true</coarsened><distance_m>150.0</distance_m><bearing_deg>0.0</bearing_deg><people>2</people><stats xsi:nil="true"></stats><last_activity>2026-11-22T21:03:00Z</last_activity><message_count>0</message_count><messages></messages><place_ids></place_ids></group><group id="12"><lat>44.5</lat><lon>11.3</lon><coarsened>false</coarsened><distance_m>1000.25</distance_m><bearing_deg>180.0</bearing_deg><people>4</people><stats><reported>4</reported><avg_age xsi:nil="true"></avg_age><male>0</male><female>0</female></stats><last_activity>2026-11-22T21:05:00Z</last_activity><message_count>1</message_count><messages></messages><place_ids><place_id>12</place_id></place_ids></group></groups>"#
    static let groupXML = #"<?xml version="1.0" encoding="UTF-8"?>\#n<group xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="7"><lat>44.4938123</lat><lon>11.3430457</lon><coarsened>false</coarsened><distance_m>12.346</distance_m><bearing_deg>45.5</bearing_deg><people>5</people><stats><reported>3</reported><avg_age>27.0</avg_age><male>2</male><female>1</female></stats><last_activity>2026-11-22T21:05:00Z</last_activity><message_count>2</message_count><messages><message id="41" place_id="7"><text>ciao a/b &quot;tutti&quot; \ è 😀\#n\#ttab</text><created_at>2026-11-22T21:05:00Z</created_at></message><message id="40"><text>&lt;b&gt;&amp;amp;&lt;/b&gt;</text><created_at>2026-11-22T21:04:00Z</created_at></message></messages><place_ids><place_id>7</place_id><place_id>9</place_id></place_ids><hull><point lon="11.34" lat="44.49"/><point lon="11.35" lat="44.49"/><point lon="11.35" lat="44.4912346"/><point lon="11.34" lat="44.49"/></hull></group>"#
    static let wallXML = #"<?xml version="1.0" encoding="UTF-8"?>\#n<wall xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" id="venue:piazza"><title>Piazza &quot;Maggiore&quot; &amp; co</title><updated_at>2026-11-22T21:05:00Z</updated_at><people>7</people><places>2</places><stats><reported>3</reported><avg_age>27.0</avg_age><male>2</male><female>1</female></stats><busiest><spot place_id="7" people="5" coarsened="false" lat="44.4938123" lon="11.343"/><spot people="2" coarsened="true" lat="44.494" lon="11.344"/></busiest><messages><message id="41" place_id="7"><text>ciao a/b &quot;tutti&quot; \ è 😀\#n\#ttab</text><created_at>2026-11-22T21:05:00Z</created_at></message><message id="40"><text>&lt;b&gt;&amp;amp;&lt;/b&gt;</text><created_at>2026-11-22T21:04:00Z</created_at></message></messages></wall>"#
    static let wallAtom = #"<?xml version="1.0" encoding="UTF-8"?>\#n<feed xmlns="http://www.w3.org/2005/Atom"><id>urn:folla:wall:venue:piazza</id><title>Piazza &quot;Maggiore&quot; &amp; co</title><subtitle>7 people in 2 places</subtitle><updated>2026-11-22T21:05:00Z</updated><author><name>Folla</name></author><link rel="self" type="application/atom+xml" href="/v1/venues/piazza/wall"/><entry><id>urn:folla:message:41</id><title>ciao a/b &quot;tutti&quot; \ è 😀\#n\#ttab</title><updated>2026-11-22T21:05:00Z</updated><content type="text">ciao a/b &quot;tutti&quot; \ è 😀\#n\#ttab</content></entry><entry><id>urn:folla:message:40</id><title>&lt;b&gt;&amp;amp;&lt;/b&gt;</title><updated>2026-11-22T21:04:00Z</updated><content type="text">&lt;b&gt;&amp;amp;&lt;/b&gt;</content></entry></feed>"#
    static let legacyPlaces = #"""
        <table xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">

        <row>
          <id>7</id>
          <longitude>11.34304567891</longitude>
          <latitude>44.49381234567</latitude>
          <num_people>5</num_people>
          <agesum>81</agesum>
          <male_number>2</male_number>
          <female_number>1</female_number>
        </row>

        <row>
          <id>0</id>
          <longitude>11.344</longitude>
          <latitude>44.494</latitude>
          <num_people>2</num_people>
        </row>

        <row>
          <id>12</id>
          <longitude>11.3</longitude>
          <latitude>44.5</latitude>
          <num_people>4</num_people>
          <agesum>0</agesum>
          <male_number>0</male_number>
          <female_number>0</female_number>
        </row>

        </table>

        """#
    static let legacyMessages = #"""
        <table xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">

        <row>
          <id>41</id>
          <text>ciao a/b &quot;tutti&quot; \ è 😀
        \#ttab</text>
        </row>

        <row>
          <id>40</id>
          <text>&lt;b&gt;&amp;amp;&lt;/b&gt;</text>
        </row>

        </table>

        """#
}
