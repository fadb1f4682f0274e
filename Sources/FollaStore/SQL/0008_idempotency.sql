-- Idempotency-Key (IETF HTTPAPI draft): a POST retried with the same key and the same
-- request gets the first answer again instead of a second write. Only hashes are kept:
-- the key's, the request's, and the answer (which says no more than it said the first time).
-- A row without a status is a request in progress; rows go after the retention window.
CREATE TABLE idempotency_key (
    key_hash     bytea PRIMARY KEY CHECK (octet_length(key_hash) = 32),
    request_hash bytea NOT NULL CHECK (octet_length(request_hash) = 32),
    status       smallint CHECK (status BETWEEN 200 AND 299),
    content_type text,
    body         bytea,
    created_at   timestamptz NOT NULL
);
CREATE INDEX idempotency_key_created ON idempotency_key (created_at);
